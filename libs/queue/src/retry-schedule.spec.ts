import { CONTROL_RETRY_SCHEDULE, LEDGER_RETRY_SCHEDULE, maxAttempts, retryDelaysMs } from './retry-schedule';

describe('retry schedules', () => {
  it('ledger: five attempts, retries after 30 s, 5 min, 1 h and 6 h in production', () => {
    expect(maxAttempts(LEDGER_RETRY_SCHEDULE)).toBe(5);
    expect(retryDelaysMs(LEDGER_RETRY_SCHEDULE)).toEqual([30_000, 300_000, 3_600_000, 21_600_000]);
  });

  it('control: eight attempts with polynomial backoff', () => {
    expect(maxAttempts(CONTROL_RETRY_SCHEDULE)).toBe(8);
    expect(retryDelaysMs(CONTROL_RETRY_SCHEDULE)).toEqual([1, 16, 81, 256, 625, 1296, 2401].map((m) => m * 15_000));
  });

  it('WEBHOOK_RETRY_BASE_MS sets the first delay and keeps the shape', () => {
    expect(retryDelaysMs(LEDGER_RETRY_SCHEDULE, 2)).toEqual([2, 20, 240, 1440]);
  });
});
