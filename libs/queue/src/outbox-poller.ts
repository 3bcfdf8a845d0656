import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Runs `step` over and over: at once again while it reports work done, after `idleMs` when there
 * was none, after a growing pause when it failed (database or Redis away). Stops on `stop()`.
 */
export class OutboxPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly name: string,
    private readonly step: () => Promise<number>,
    private readonly idleMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick();
    }, delayMs);
  }

  private async tick(): Promise<void> {
    try {
      const done = await this.step();
      this.failures = 0;
      this.schedule(done > 0 ? 0 : this.idleMs);
    } catch (err) {
      this.failures += 1;
      if (this.failures === 1) this.logger.warn({ err: (err as Error).message, poller: this.name }, 'outbox poller step failed');
      this.schedule(Math.min(this.idleMs * 2 ** this.failures, 5_000));
    }
  }
}

/**
 * A provider whose background work runs on an OutboxPoller for the app's life: started once the app
 * is up (not at all with an interval of 0), stopped at shutdown after the round in flight.
 */
export abstract class PolledWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private poller: OutboxPoller | null = null;

  protected constructor(
    private readonly pollerName: string,
    private readonly pollerLogger: Logger,
  ) {}

  /** One round; what it did (more than 0 goes again at once). */
  protected abstract step(): Promise<number>;

  /** How long an idle poller waits between rounds; 0 runs none. */
  protected abstract get intervalMs(): number;

  async onApplicationBootstrap(): Promise<void> {
    if (this.intervalMs === 0) return;
    this.poller = new OutboxPoller(this.pollerName, () => this.step(), this.intervalMs, this.pollerLogger);
    this.poller.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.poller?.stop();
  }
}

/**
 * A PolledWorker for a round that drains what it can by itself (a log sealer's `round()`, a fold):
 * the poller always waits its interval after one.
 */
export class RoundWorker extends PolledWorker {
  constructor(
    name: string,
    private readonly everyMs: number,
    private readonly round: () => Promise<unknown>,
    logger: Logger,
  ) {
    super(name, logger);
  }

  protected get intervalMs(): number {
    return this.everyMs;
  }

  protected async step(): Promise<number> {
    await this.round();
    return 0;
  }
}
