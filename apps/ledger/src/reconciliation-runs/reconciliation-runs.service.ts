import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ExternalTransactionsService } from '../external-transactions/external-transactions.service';
import { isIngestError, parseIngestItem } from '../external-transactions/ingest-item';
import { SourceRecord } from '../sources/source.record';
import { SourcesService } from '../sources/sources.service';
import { InlineRunDto, RunOptionsDto, SourceRunDto } from './dto/reconciliation-run.dto';
import { ReconciliationRunErrors } from './reconciliation-run-errors';
import { ReconciliationRunExecutor } from './reconciliation-run.executor';
import { ReconciliationRunQueue } from './reconciliation-run.queue';
import type { NewRun, RunRecord } from './reconciliation-run.record';
import { ReconciliationCandidatesRepository } from './reconciliation-candidates.repository';
import { ReconciliationRunsRepository } from './reconciliation-runs.repository';

function runInProgress(source: SourceRecord) {
  return ReconciliationRunErrors.error('run_in_progress', {
    message: `Source ${source.name} already has a queued or running reconciliation run`,
    hint: 'Wait for it to finish (GET /ledger/v1/reconciliation_runs), then start another',
    details: { source_id: source.id },
  });
}

/**
 * Starts reconciliation runs and reads them back. A run over at most
 * LEDGER_RECONCILIATION_SYNC_ROW_LIMIT open rows is born `running` and executed inside the request
 * (answering `completed`); a larger one is born `queued` and executed by the background queue.
 * Either way the run row is committed first, so the one-active-run index refuses a second run of
 * the source (409 run_in_progress) for as long as the first is unfinished.
 */
@Injectable()
export class ReconciliationRunsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly runs: ReconciliationRunsRepository,
    private readonly candidates: ReconciliationCandidatesRepository,
    private readonly executor: ReconciliationRunExecutor,
    private readonly queue: ReconciliationRunQueue,
    private readonly sources: SourcesService,
    private readonly externalTransactions: ExternalTransactionsService,
    private readonly settings: LedgerSettings,
  ) {}

  /** Ingests the items into the named source (implicit when new) and reconciles those rows. */
  async inline(scope: LedgerScope, body: InlineRunDto): Promise<RunRecord> {
    const range = this.range(body);
    // Any bad item refuses the whole request before anything is written (ingest alone would land the others).
    body.items.forEach((item, index) => {
      const parsed = parseIngestItem(item, index);
      if (isIngestError(parsed)) throw LedgerErrors.error('invalid_request', { message: parsed.message, param: parsed.param });
    });
    const started = await this.dataSource.transaction(async (manager) => {
      const source = await this.sources.findOrCreateImplicit(scope, body.source, manager);
      const ingested = await this.externalTransactions.ingest(scope, source, body.items, manager);
      const rowIds = ingested.ids;
      const run = this.newRun(source, body, range, rowIds.length, rowIds);
      const id = await this.runs.insert(manager, scope, run);
      if (!id) throw runInProgress(source);
      return { id, status: run.status };
    });
    return this.started(scope, started.id, started.status);
  }

  /** Reconciles the source's open rows (occurred_at in [from, to) when given). */
  async forSource(scope: LedgerScope, sourceId: string, body: SourceRunDto): Promise<RunRecord> {
    const range = this.range(body);
    const source = await this.sources.get(scope, sourceId);
    const limit = this.settings.LEDGER_RECONCILIATION_SYNC_ROW_LIMIT;
    const open = await this.candidates.countOpenRows(scope, source.id, range.from, range.to, limit + 1);
    const run = this.newRun(source, body, range, open, null);
    const id = await this.runs.insert(this.dataSource.manager, scope, run);
    if (!id) throw runInProgress(source);
    return this.started(scope, id, run.status);
  }

  async get(scope: LedgerScope, id: string): Promise<RunRecord> {
    const run = isUUID(id) ? await this.runs.find(scope, id, true) : null;
    if (!run) throw LedgerErrors.error('not_found', { message: `No reconciliation run ${id}` });
    return run;
  }

  list(scope: LedgerScope, limit: number): Promise<RunRecord[]> {
    return this.runs.list(scope, limit);
  }

  private range(body: RunOptionsDto): { from: Date | null; to: Date | null } {
    const from = body.from ? new Date(body.from) : null;
    const to = body.to ? new Date(body.to) : null;
    if (from && to && from >= to) throw LedgerErrors.error('invalid_request', { message: 'to must follow from', param: 'to' });
    return { from, to };
  }

  /** The run's settings: the request's, else the source's defaults. */
  private newRun(
    source: SourceRecord,
    body: RunOptionsDto,
    range: { from: Date | null; to: Date | null },
    openRows: number,
    rowIds: string[] | null,
  ): NewRun {
    return {
      sourceId: source.id,
      status: openRows <= this.settings.LEDGER_RECONCILIATION_SYNC_ROW_LIMIT ? 'running' : 'queued',
      externalReference: body.external_reference ?? null,
      note: body.note ?? null,
      strategy: body.strategy ?? source.defaultStrategy,
      windowSeconds: body.window_seconds ?? source.defaultWindowSeconds,
      autoResolveBelow: BigInt(body.auto_resolve_below_minor_units ?? source.defaultToleranceMinorUnits).toString(),
      rangeFrom: range.from,
      rangeTo: range.to,
      externalTransactionIds: rowIds,
    };
  }

  /** Executes a small run here and now, or hands a large one to the queue; answers the run as it then stands. */
  private async started(scope: LedgerScope, id: string, status: 'queued' | 'running'): Promise<RunRecord> {
    if (status === 'queued') {
      // Read before queueing, so the answer is the run as created (the worker may start it at once).
      const queued = await this.get(scope, id);
      this.queue.enqueueSoon({ runId: id, organizationId: scope.organizationId, ledgerId: scope.ledgerId, mode: scope.mode });
      return queued;
    }
    const run = await this.runs.find(scope, id, false);
    if (run) await this.executor.execute(scope, run);
    return this.get(scope, id);
  }
}
