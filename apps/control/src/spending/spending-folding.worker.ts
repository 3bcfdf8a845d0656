import { roundWorker } from '../common/round-worker';
import { SpendingRepository } from './spending.repository';

/**
 * Folds decisions into the Spending rollups after the fact, so an authorization's write never touches
 * them. Every replica runs one; the folds take turns on the state row, and one that finds nothing new
 * returns at once.
 */
export const SPENDING_FOLDING = roundWorker('control-spending-rollups', (s) => s.CONTROL_ROLLUP_FOLD_INTERVAL_MS, SpendingRepository, (spending) => spending.fold());
