import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { createQueueConnection, OutboxPoller } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerScope, Mode } from '../common/mode';
import { ReconciliationRunExecutor } from './reconciliation-run.executor';
import { ReconciliationRunsRepository, RunToResume } from './reconciliation-runs.repository';

/** The ledger's own queue of background reconciliation runs (under WEBHOOK_QUEUE_PREFIX, like its other queues). */
export const RECONCILIATION_RUN_QUEUE = 'ledger-reconciliation-runs';
/** Runs resumed per sweep round. */
const SWEEP_BATCH = 100;

/**
 * Background runs. A job names a run (the job id is the run id, so a run is queued at most once at
 * a time); the worker claims the run in the database before executing it, so a job delivered twice,
 * or one for a run another replica already has, does nothing. The database is the record: a sweep
 * hands the queue every run still `queued` (its job was lost with Redis, say) and every `running`
 * one whose heartbeat stopped (its process died), so no run is left running forever.
 */
@Injectable()
export class ReconciliationRunQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private connection: Redis | null = null;
  private queue: Queue<RunToResume> | null = null;
  private worker: Worker<RunToResume> | null = null;
  private sweep: OutboxPoller | null = null;

  constructor(
    private readonly runs: ReconciliationRunsRepository,
    private readonly executor: ReconciliationRunExecutor,
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const prefix = this.settings.WEBHOOK_QUEUE_PREFIX;
    this.connection = createQueueConnection({ redisUrl: this.settings.REDIS_URL, prefix, logger: this.logger, name: 'ledger-reconciliation' });
    this.queue = new Queue<RunToResume>(RECONCILIATION_RUN_QUEUE, { connection: this.connection, prefix });
    // One run at a time per process: a run holds its rows and candidates in memory.
    this.worker = new Worker<RunToResume>(RECONCILIATION_RUN_QUEUE, (job: Job<RunToResume>) => this.process(job.data), {
      connection: this.connection,
      prefix,
      concurrency: 1,
    });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'reconciliation run worker error'));
    this.sweep = new OutboxPoller(
      'ledger-reconciliation-sweep',
      () => this.resume().then(() => 0),
      this.settings.LEDGER_RECONCILIATION_SWEEP_INTERVAL_MS,
      this.logger,
    );
    this.sweep.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweep?.stop();
    await this.worker?.close();
    await this.queue?.close();
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }

  /** Hands runs to the queue; a run already queued there is not added twice. */
  async enqueue(runs: RunToResume[]): Promise<void> {
    if (!this.queue || runs.length === 0) return;
    await this.queue.addBulk(
      runs.map((run) => ({
        name: 'run',
        data: run,
        // Removed when done either way, so the sweep can queue the run again if it is still unfinished.
        opts: { jobId: run.runId, removeOnComplete: true, removeOnFail: true },
      })),
    );
  }

  /** Best effort for a run just created: when Redis is away, the sweep queues it later. */
  enqueueSoon(run: RunToResume): void {
    this.enqueue([run]).catch((err: unknown) => this.logger.warn({ err, run_id: run.runId }, 'could not queue a reconciliation run; the sweep will'));
  }

  private async resume(): Promise<void> {
    await this.enqueue(await this.runs.resumable(this.settings.LEDGER_RECONCILIATION_STALE_AFTER_MS, SWEEP_BATCH));
  }

  private async process(job: RunToResume): Promise<void> {
    const scope: LedgerScope = { organizationId: job.organizationId, ledgerId: job.ledgerId, mode: job.mode as Mode };
    const run = await this.runs.claim(scope, job.runId, this.settings.LEDGER_RECONCILIATION_STALE_AFTER_MS);
    if (run) await this.executor.execute(scope, run);
  }
}
