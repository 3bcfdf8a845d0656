import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { BalancesController } from './balances.controller';
import { BalancesRepository } from './balances.repository';
import { BalancesService } from './balances.service';

@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [BalancesController],
  providers: [BalancesRepository, BalancesService],
  exports: [BalancesRepository, BalancesService],
})
export class BalancesModule {}
