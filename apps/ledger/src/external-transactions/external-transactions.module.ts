import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesModule } from '../sources/sources.module';
import { ExternalTransactionsRepository } from './external-transactions.repository';
import { ExternalTransactionsService } from './external-transactions.service';

/**
 * External transactions (reference s.12): rows of a source, ingested idempotently, matched to
 * postings by hand here and by reconciliation runs elsewhere.
 */
@Module({
  imports: [AuthModule, EventsModule, LedgersModule, SourcesModule],
  controllers: [],
  providers: [ExternalTransactionsRepository, ExternalTransactionsService],
  exports: [ExternalTransactionsService],
})
export class ExternalTransactionsModule {}
