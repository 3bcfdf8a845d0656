import type { Outcome } from './decision';
import type { IntentState } from './intent.entity';

/**
 * Which intents count toward velocity, monthly and rate windows: the one definition read by SQL
 * (`windowUsage`, the backtests' history), the engine's callers and the backtest simulator. The
 * partial index `intents_window` (a migration) names the same states; an agreement spec checks it.
 */
export const COUNTED_STATES: readonly IntentState[] = ['pending', 'held', 'completed', 'executed'];

/** The state an intent is recorded in for its decision's outcome (a lost token race records `failed` instead). */
export const STATE_OF: Readonly<Record<Outcome, IntentState>> = { allowed: 'pending', requires_approval: 'held', denied: 'denied' };

export function stateCounts(state: IntentState): boolean {
  return COUNTED_STATES.includes(state);
}

/** Whether an intent decided with this outcome counts from its creation (until a release moves it to an uncounted state). */
export function outcomeCounts(outcome: Outcome): boolean {
  return stateCounts(STATE_OF[outcome]);
}

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const COUNTED_OUTCOMES = (Object.keys(STATE_OF) as Outcome[]).filter(outcomeCounts);

/** SQL: the intent state in `column` counts (the same text as the index predicate, so the planner uses the index). */
export const countedStateSql = (column: string) => `${column} IN (${quoted(COUNTED_STATES)})`;

/** SQL: a recorded outcome (text) in `column` counted when decided. */
export const countedOutcomeSql = (column: string) => `${column} IN (${quoted(COUNTED_OUTCOMES)})`;
