import { ApiError } from '@bursar/errors';
import type { PostingEntity } from '../postings/posting.entity';
import { refundLegs, reversalLegs, scaleHalfEven } from './correction-legs';

let nextId = 1;
function posting(account: string, amount: bigint, direction: 'debit' | 'credit', more: Partial<PostingEntity> = {}): PostingEntity {
  return {
    id: String(nextId++),
    ledgerId: 'l',
    transactionId: 't',
    accountId: account,
    amount: amount.toString(),
    currency: 'USD',
    direction,
    pending: false,
    committedAt: null,
    voidedAt: null,
    tags: { note: 'x' },
    valueDate: new Date(0),
    reconciledAt: null,
    reconciliationReference: null,
    createdAt: new Date(0),
    ...more,
  };
}

const shape = (legs: { account: string; amount: bigint; direction: string }[]) => legs.map((l) => `${l.direction} ${l.account} ${l.amount}`);

function refused(f: () => unknown): string | null {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  return null;
}

describe('correction legs', () => {
  // A sale of 100: cash debited, revenue 90 and tax 10 credited; a pending hold of 5 beside it.
  const sale = [
    posting('cash', 100n, 'debit'),
    posting('revenue', 90n, 'credit'),
    posting('tax', 10n, 'credit'),
    posting('hold', 5n, 'debit', { pending: true }),
    posting('cash', 5n, 'credit', { pending: true }),
  ];

  it('rounds half to even', () => {
    expect([scaleHalfEven(5n, 1n, 2n), scaleHalfEven(7n, 1n, 2n), scaleHalfEven(10n, 1n, 3n)]).toEqual([2n, 4n, 3n]);
  });

  it('reverses what is posted, flipped, untagged, and leaves pending legs to the voids', () => {
    const legs = reversalLegs(sale, []);
    expect(shape(legs)).toEqual(['credit cash 100', 'debit revenue 90', 'debit tax 10']);
    expect(legs.every((l) => Object.keys(l.tags).length === 0 && !l.pending)).toBe(true);
  });

  it('refunds part of the gross with every leg scaled alike, and the last refund takes exactly what is left', () => {
    const first = refundLegs(sale, [], 33n, undefined);
    expect(first.currency).toBe('USD');
    // 90 * 33 / 100 = 29.7 -> 30, 10 * 33 / 100 = 3.3 -> 3: the credit side sums to 33.
    expect(shape(first.legs)).toEqual(['credit cash 33', 'debit revenue 30', 'debit tax 3']);
    const refunded = first.legs.map((l) => posting(l.account, l.amount, l.direction));
    const rest = refundLegs(sale, refunded, 67n, 'USD');
    expect(shape(rest.legs)).toEqual(['credit cash 67', 'debit revenue 60', 'debit tax 7']);
    // After both, a reversal has nothing left to undo.
    expect(reversalLegs(sale, [...refunded, ...rest.legs.map((l) => posting(l.account, l.amount, l.direction))])).toEqual([]);
  });

  it('refuses a refund beyond what is left, and asks for the currency when the original has several', () => {
    expect(refused(() => refundLegs(sale, [], 101n, undefined))).toBe('partial_refund_exceeds_original');
    const fx = [...sale, posting('fx', 7n, 'debit', { currency: 'EUR' }), posting('fx-out', 7n, 'credit', { currency: 'EUR' })];
    expect(refused(() => refundLegs(fx, [], 1n, undefined))).toBe('refund_currency_required');
    expect(refused(() => refundLegs(sale, [], 1n, 'JPY'))).toBe('invalid_request');
    expect(refundLegs(fx, [], 7n, 'EUR').legs.filter((l) => l.currency === 'EUR').map((l) => l.amount)).toEqual([7n, 7n]);
  });
});
