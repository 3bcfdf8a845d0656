import { ApiError } from '@bursar/errors';
import { assertBalanced, flipped, legKey, legTotals, PlannedPosting, plannedPostings } from './transaction-plan';

const leg = (account: string, amount: bigint, direction: 'debit' | 'credit', currency = 'USD', pending = false): PlannedPosting => ({
  account,
  amount,
  currency,
  direction,
  pending,
  tags: {},
});

function refusal(postings: PlannedPosting[]): ApiError {
  try {
    assertBalanced(postings);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('balanced');
}

describe('transaction plan', () => {
  it('normalizes inputs: amounts as BigInt, currency upper case, posted and untagged unless said', () => {
    expect(plannedPostings([{ account: 'cash', amount: '12', currency: 'usd', direction: 'debit' }])).toEqual([leg('cash', 12n, 'debit')]);
  });

  it('accepts debits equal to credits in every currency', () => {
    expect(() => assertBalanced([leg('a', 5n, 'debit'), leg('b', 5n, 'credit'), leg('c', 7n, 'debit', 'EUR'), leg('d', 7n, 'credit', 'EUR')])).not.toThrow();
  });

  it('refuses an unbalanced currency with its debit, credit and residual', () => {
    const err = refusal([leg('a', 5n, 'debit'), leg('b', 3n, 'credit'), leg('c', 1n, 'debit', 'EUR'), leg('d', 1n, 'credit', 'EUR')]);
    expect(err.code).toBe('unbalanced');
    expect(err.extras.details).toEqual({ by_currency: { USD: { debit: '5', credit: '3', residual: '2' } }, residual_by_currency: { USD: '2' } });
  });

  it('refuses pending legs that balance only with posted ones', () => {
    const err = refusal([leg('a', 5n, 'debit', 'USD', true), leg('b', 5n, 'credit')]);
    expect(err.code).toBe('unbalanced');
    expect(err.message).toMatch(/Pending legs/);
  });

  it('flips directions and sums legs per account, currency and side', () => {
    const legs = [leg('a', 5n, 'debit'), leg('a', 2n, 'debit'), leg('b', 7n, 'credit')];
    expect(flipped(legs).map((l) => l.direction)).toEqual(['credit', 'credit', 'debit']);
    expect(legTotals(legs)).toEqual(new Map([[legKey(legs[0]), 7n], [legKey(legs[2]), 7n]]));
  });
});
