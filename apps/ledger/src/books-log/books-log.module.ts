import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { BooksLogController, BooksLogKeysController } from './books-log.controller';
import { BooksLogMetrics } from './books-log.metrics';
import { BooksLogService } from './books-log.service';
import { LogChangesRepository } from './log-changes.repository';
import { LogKeysService } from './log-keys.service';

/** Each ledger's books as a verifiable Merkle log: the sealer, checkpoints, proofs and their keys. */
@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [BooksLogController, BooksLogKeysController],
  providers: [LogChangesRepository, LogKeysService, BooksLogService, BooksLogMetrics],
  exports: [BooksLogService],
})
export class BooksLogModule {}
