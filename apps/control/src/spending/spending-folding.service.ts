import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { OutboxPoller } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { SpendingRepository } from './spending.repository';

/**
 * Folds decisions into the Spending rollups every CONTROL_ROLLUP_FOLD_INTERVAL_MS (0: off), after
 * the fact, so an authorization's write never touches them. Every replica runs one; the folds take
 * turns on the state row, and one that finds nothing new returns at once. A failed fold is logged
 * and the next one tries again.
 */
@Injectable()
export class SpendingFoldingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private poller: OutboxPoller | null = null;

  constructor(
    private readonly spending: SpendingRepository,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'CONTROL_ROLLUP_FOLD_INTERVAL_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.CONTROL_ROLLUP_FOLD_INTERVAL_MS === 0) return;
    this.poller = new OutboxPoller('control-spending-rollups', () => this.fold().then(() => 0), this.settings.CONTROL_ROLLUP_FOLD_INTERVAL_MS, this.logger);
    this.poller.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.poller?.stop();
  }

  /** Folds what can be folded now; returns the new folded_to (null while nothing could be folded yet). */
  fold(): Promise<Date | null> {
    return this.spending.fold();
  }
}
