import { PeriodCloseEntity } from './period-close.entity';

/** The trial balance travels only on create and on GET by id. */
export function presentPeriodClose(c: PeriodCloseEntity, withTrialBalance: boolean) {
  return {
    object: 'period_close' as const,
    id: c.id,
    period_start: c.periodStart.toISOString(),
    period_end: c.periodEnd.toISOString(),
    closed_by_label: c.closedByLabel,
    note: c.note,
    forced: c.forced,
    forced_by_label: c.forcedByLabel,
    forced_at: c.forcedAt?.toISOString() ?? null,
    reopened_at: c.reopenedAt?.toISOString() ?? null,
    reopened_by_label: c.reopenedByLabel,
    created_at: c.createdAt.toISOString(),
    ...(withTrialBalance && { trial_balance: c.trialBalance }),
  };
}
