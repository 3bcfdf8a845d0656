import { addTo, mapToStrings } from '../balances/money';
import { LedgerErrors } from '../common/ledger-errors';
import type { PostingEntity } from '../postings/posting.entity';
import { TransactionErrors } from '../transactions/transaction-errors';
import { flipped, legKey, legTotals, PlannedPosting, plannedOf } from './transaction-plan';

/*
 * The legs of corrections, from the original's postings and those of its earlier refunds. A
 * correction is a new transaction: these legs undo (part of) what the original posted.
 */

const postedLegs = (postings: PostingEntity[]) => postings.filter((p) => !p.pending && !p.voidedAt).map(plannedOf);

/** n * num / den rounded half to even (banker's rounding). */
export function scaleHalfEven(n: bigint, num: bigint, den: bigint): bigint {
  const q = (n * num) / den;
  const twice = 2n * ((n * num) % den);
  return twice > den || (twice === den && q % 2n === 1n) ? q + 1n : q;
}

/** Debit totals per currency: the gross of a balanced set of legs. */
function grossByCurrency(legs: PlannedPosting[]): Map<string, bigint> {
  const gross = new Map<string, bigint>();
  for (const leg of legs) if (leg.direction === 'debit') addTo(gross, leg.currency, leg.amount);
  return gross;
}

/**
 * Legs of `legs` in one currency scaled so each side sums to `target`: each leg by the common
 * ratio, half-even, with the rounding residual put on the largest leg of its side.
 */
function scaledSide(legs: PlannedPosting[], ratio: [bigint, bigint], target: bigint): PlannedPosting[] {
  if (legs.length === 0) return [];
  const scaled = legs.map((l) => ({ ...l, amount: scaleHalfEven(l.amount, ratio[0], ratio[1]) }));
  const largest = legs.reduce((best, l, i) => (l.amount > legs[best].amount ? i : best), 0);
  scaled[largest].amount += target - scaled.reduce((sum, l) => sum + l.amount, 0n);
  return scaled;
}

/** A reversal's legs: what is left of every posted leg after earlier refunds, flipped (one leg per account, currency and side). */
export function reversalLegs(original: PostingEntity[], refunded: PostingEntity[]): PlannedPosting[] {
  const remaining = legTotals(postedLegs(original));
  for (const leg of flipped(postedLegs(refunded))) addTo(remaining, legKey(leg), -leg.amount);
  const legs = postedLegs(original)
    .filter((leg, i, all) => all.findIndex((o) => legKey(o) === legKey(leg)) === i)
    .map((leg) => ({ ...leg, tags: {}, amount: remaining.get(legKey(leg)) ?? 0n }))
    .filter((leg) => leg.amount > 0n);
  return flipped(legs);
}

/**
 * A refund's legs: `amount` of the original's gross in `currency` (required when it has several),
 * every posted leg scaled alike; the last refund takes exactly what is left, so rounding never
 * leaves dust behind. 422 when the amount exceeds what earlier refunds left.
 */
export function refundLegs(
  original: PostingEntity[],
  refunded: PostingEntity[],
  amount: bigint,
  currency: string | undefined,
): { legs: PlannedPosting[]; currency: string } {
  const legs = postedLegs(original);
  const gross = grossByCurrency(legs);
  if (currency === undefined && gross.size > 1) {
    throw TransactionErrors.error('refund_currency_required', { param: 'currency', details: { currencies: [...gross.keys()] } });
  }
  const refundCurrency = currency ?? [...gross.keys()][0];
  if (refundCurrency === undefined || !gross.has(refundCurrency)) {
    throw LedgerErrors.error('invalid_request', {
      message: `The original has no posted ${refundCurrency ?? ''} legs to refund`.replace('  ', ' '),
      param: 'currency',
    });
  }
  const done = grossByCurrency(postedLegs(refunded));
  const remaining = new Map([...gross].map(([c, g]) => [c, g - (done.get(c) ?? 0n)] as const));
  const left = remaining.get(refundCurrency) ?? 0n;
  if (amount > left) {
    throw TransactionErrors.error('partial_refund_exceeds_original', {
      param: 'amount',
      details: { remaining_by_currency: mapToStrings(remaining), currency: refundCurrency, requested: amount.toString() },
    });
  }
  const ratio: [bigint, bigint] = [amount, gross.get(refundCurrency) ?? 1n];
  const finishing = amount === left;
  const postings: PlannedPosting[] = [];
  for (const [c, g] of gross) {
    const target = finishing ? (remaining.get(c) ?? 0n) : c === refundCurrency ? amount : scaleHalfEven(g, ratio[0], ratio[1]);
    const inCurrency = legs.filter((l) => l.currency === c).map((l) => ({ ...l, tags: {} }));
    for (const side of ['debit', 'credit'] as const) {
      postings.push(...scaledSide(inCurrency.filter((l) => l.direction === side), ratio, target));
    }
  }
  return { legs: flipped(postings.filter((p) => p.amount > 0n)), currency: refundCurrency };
}
