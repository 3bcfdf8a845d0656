import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgerSelectionPipe } from './current-ledger.decorator';
import { LedgersController } from './ledgers.controller';
import { LedgersRepository } from './ledgers.repository';
import { LedgersService } from './ledgers.service';

/** Global so @CurrentLedger's pipe resolves in every feature module without an import. */
@Global()
@Module({
  imports: [AuthModule],
  controllers: [LedgersController],
  providers: [LedgersRepository, LedgersService, LedgerSelectionPipe],
  exports: [LedgersService, LedgerSelectionPipe],
})
export class LedgersModule {}
