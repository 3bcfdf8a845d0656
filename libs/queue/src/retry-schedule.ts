/**
 * Delivery schedules, as the delays before each retry measured in units of the first delay, so
 * WEBHOOK_RETRY_BASE_MS (the first delay) scales the whole schedule while keeping its shape.
 */
export interface RetrySchedule {
  /** The first retry delay in production, in milliseconds. */
  defaultBaseMs: number;
  /** Retry n waits `multipliers[n-1] * base`; attempts = multipliers.length + 1. */
  multipliers: number[];
}

/**
 * The ledger's contract: five attempts, then dead. Retries wait 30 s, 5 min, 1 h and 6 h (the
 * reference's list; its last 24 h step would follow a sixth attempt, which the contract does not make).
 */
export const LEDGER_RETRY_SCHEDULE: RetrySchedule = { defaultBaseMs: 30_000, multipliers: [1, 10, 120, 720] };

/**
 * Control's (the reference's): eight attempts with polynomial backoff, retry n waiting n^4 times the
 * base (15 s, 4 min, 20 min, 64 min, 2.6 h, 5.4 h, 10 h in production).
 */
export const CONTROL_RETRY_SCHEDULE: RetrySchedule = {
  defaultBaseMs: 15_000,
  multipliers: [1, 2, 3, 4, 5, 6, 7].map((n) => n ** 4),
};

/** The retry delays in milliseconds for a base (the schedule's production base when unset). */
export function retryDelaysMs(schedule: RetrySchedule, baseMs?: number): number[] {
  const base = baseMs ?? schedule.defaultBaseMs;
  return schedule.multipliers.map((m) => Math.round(m * base));
}

export function maxAttempts(schedule: RetrySchedule): number {
  return schedule.multipliers.length + 1;
}
