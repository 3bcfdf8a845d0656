import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { PolledWorker } from '@bursar/queue';
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
export class SpendingFoldingService extends PolledWorker {
  constructor(
    private readonly spending: SpendingRepository,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'CONTROL_ROLLUP_FOLD_INTERVAL_MS'>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super('control-spending-rollups', logger);
  }

  protected get intervalMs(): number {
    return this.settings.CONTROL_ROLLUP_FOLD_INTERVAL_MS;
  }

  protected async step(): Promise<number> {
    await this.fold();
    return 0;
  }

  /** Folds what can be folded now; returns the new folded_to (null while nothing could be folded yet). */
  fold(): Promise<Date | null> {
    return this.spending.fold();
  }
}
