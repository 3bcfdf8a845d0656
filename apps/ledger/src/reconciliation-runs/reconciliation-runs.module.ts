import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { ExternalTransactionsModule } from '../external-transactions/external-transactions.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesModule } from '../sources/sources.module';
import { ReconciliationCandidatesRepository } from './reconciliation-candidates.repository';
import { ReconciliationRunExecutor } from './reconciliation-run.executor';
import { ReconciliationRunQueue } from './reconciliation-run.queue';
import { ReconciliationRunsController } from './reconciliation-runs.controller';
import { ReconciliationRunsRepository } from './reconciliation-runs.repository';
import { ReconciliationRunsService } from './reconciliation-runs.service';

/** Reconciliation runs (reference s.12): inline and source runs, their matching engine and background queue. */
@Module({
  imports: [AuthModule, LedgersModule, EventsModule, SourcesModule, ExternalTransactionsModule],
  controllers: [ReconciliationRunsController],
  providers: [ReconciliationRunsRepository, ReconciliationCandidatesRepository, ReconciliationRunExecutor, ReconciliationRunQueue, ReconciliationRunsService],
})
export class ReconciliationRunsModule {}
