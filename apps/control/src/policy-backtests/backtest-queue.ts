import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { createQueueConnection } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { BacktestInterrupted, BacktestRunner } from './backtest-runner';
import { PolicyBacktestsRepository } from './policy-backtests.repository';

/** Control's own queue; every control replica consumes it. */
export const POLICY_BACKTESTS_QUEUE = 'policy-backtests';

interface BacktestJob {
  workspace_id: string;
  id: string;
}

/**
 * Large backtests on a BullMQ queue. The database row is the record: a job only says "run this
 * one", its id is the backtest's (queueing twice adds nothing), and a run always starts over. A
 * shutdown hands the running backtest back (`queued`); at boot and every few seconds a sweep queues
 * again every backtest that is queued, or running without a heartbeat (its worker died), so none is
 * left `running` and none is lost with Redis.
 */
@Injectable()
export class BacktestQueue implements OnApplicationBootstrap, OnModuleDestroy {
  private connection?: Redis;
  private queue?: Queue<BacktestJob>;
  private worker?: Worker<BacktestJob>;
  private timer?: NodeJS.Timeout;
  private readonly stopping = new AbortController();

  constructor(
    private readonly backtests: PolicyBacktestsRepository,
    private readonly runner: BacktestRunner,
    private readonly settings: ControlSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.connection = createQueueConnection({ redisUrl: this.settings.REDIS_URL, logger: this.logger, name: 'control-backtests' });
    const prefix = this.settings.WEBHOOK_QUEUE_PREFIX;
    this.queue = new Queue<BacktestJob>(POLICY_BACKTESTS_QUEUE, { connection: this.connection, prefix });
    this.worker = new Worker<BacktestJob>(POLICY_BACKTESTS_QUEUE, (job) => this.process(job), { connection: this.connection, prefix, concurrency: 1 });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'backtest worker error'));
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), Math.min(10_000, Math.ceil(this.settings.POLICY_BACKTEST_STALE_MS / 2)));
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.worker?.close();
    await this.queue?.close();
    await this.connection?.quit().catch(() => undefined);
  }

  async enqueue(workspaceId: string, id: string): Promise<void> {
    await this.queue?.add('run', { workspace_id: workspaceId, id }, { jobId: id, removeOnComplete: true, removeOnFail: true });
  }

  /** Queues every backtest that needs a worker (see the class comment). */
  async sweep(): Promise<void> {
    try {
      for (const b of await this.backtests.unfinished(this.settings.POLICY_BACKTEST_STALE_MS)) await this.enqueue(b.workspace_id, b.id);
    } catch (err) {
      this.logger.warn({ err }, 'backtest sweep failed; retrying next interval');
    }
  }

  private async process(job: Job<BacktestJob>): Promise<void> {
    const { workspace_id: workspaceId, id } = job.data;
    if (this.stopping.signal.aborted) return;
    const claimed = await this.backtests.claim(workspaceId, id, this.settings.POLICY_BACKTEST_STALE_MS);
    if (!claimed) return;
    try {
      await this.runner.run(claimed, this.stopping.signal);
    } catch (err) {
      if (err instanceof BacktestInterrupted) {
        if (this.stopping.signal.aborted) await this.backtests.release(workspaceId, id);
        return;
      }
      this.logger.error({ err, backtest_id: id }, 'backtest failed');
      await this.backtests.fail(workspaceId, id, 'The backtest stopped on an internal error');
    }
  }
}
