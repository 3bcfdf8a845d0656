import type { Budget } from './budget.entity';

/** What a budget can still reserve: its amount less what is spent and what is held. */
export function remainingCents(budget: Pick<Budget, 'budget_cents' | 'spent_cents' | 'reserved_cents'>): number {
  return budget.budget_cents - budget.spent_cents - budget.reserved_cents;
}
