import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesModule } from '../sources/sources.module';
import {
  ExternalTransactionsController,
  PostingReconciliationsController,
  SourceExternalTransactionsController,
} from './external-transactions.controller';
import { ExternalTransactionsRepository } from './external-transactions.repository';
import { ExternalTransactionsService } from './external-transactions.service';
import { ReconciliationMatchesRepository } from './reconciliation-matches.repository';

/**
 * External transactions (reference s.12): rows of a source, ingested idempotently, matched to
 * postings by hand here and by reconciliation runs elsewhere.
 */
@Module({
  imports: [AuthModule, EventsModule, LedgersModule, SourcesModule],
  controllers: [ExternalTransactionsController, SourceExternalTransactionsController, PostingReconciliationsController],
  providers: [ExternalTransactionsRepository, ReconciliationMatchesRepository, ExternalTransactionsService],
  exports: [ExternalTransactionsService, ReconciliationMatchesRepository],
})
export class ExternalTransactionsModule {}
