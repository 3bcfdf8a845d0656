import type { Direction } from '../accounts/account-kinds';
import { normalizeCurrency } from '../accounts/currencies';
import { addTo, mapToStrings } from '../balances/money';
import type { PostingEntity } from '../postings/posting.entity';
import { TransactionKind } from '../transactions/transaction.entity';
import { TransactionErrors } from '../transactions/transaction-errors';

export interface PlannedPosting {
  account: string;
  amount: bigint;
  currency: string;
  direction: Direction;
  pending: boolean;
  tags: Record<string, string>;
}

export interface PlannedCondition {
  account: string;
  lockVersion?: number;
  minAvailable?: bigint;
  maxAvailable?: bigint;
}

export interface PlannedExternalRef {
  rail: string;
  kind: string;
  value: string;
  metadata: Record<string, unknown>;
}

/** A transaction ready to write: normalized, balanced, not yet checked against the accounts. */
export interface TransactionPlan {
  idempotencyKey: string | null;
  kind: TransactionKind;
  reverses: string | null;
  refund: { amount: bigint; currency: string } | null;
  metadata: Record<string, unknown>;
  valueDate: Date;
  postings: PlannedPosting[];
  externalRefs: PlannedExternalRef[];
  conditions: PlannedCondition[];
  /** Pending legs of other transactions this one releases (a reversal voids them). */
  voids: { postingIds: string[]; postings: PlannedPosting[] } | null;
}

export interface PostingInput {
  account: string;
  amount: string | number;
  currency: string;
  direction: Direction;
  pending?: boolean;
  tags?: Record<string, string>;
}

export function plannedPostings(inputs: PostingInput[]): PlannedPosting[] {
  return inputs.map((p) => ({
    account: p.account,
    amount: BigInt(p.amount),
    currency: normalizeCurrency(p.currency),
    direction: p.direction,
    pending: p.pending ?? false,
    tags: p.tags ?? {},
  }));
}

export interface CurrencyTotals {
  debit: bigint;
  credit: bigint;
}

export function totalsByCurrency(postings: PlannedPosting[]): Map<string, CurrencyTotals> {
  const totals = new Map<string, CurrencyTotals>();
  for (const p of postings) {
    const t = totals.get(p.currency) ?? { debit: 0n, credit: 0n };
    t[p.direction] += p.amount;
    totals.set(p.currency, t);
  }
  return totals;
}

/**
 * Debits equal credits in every currency, and separately among the pending legs, so the posted
 * books stay balanced whether or not pending legs are ever committed. 422 `unbalanced` lists the
 * debit, credit and residual (debit minus credit) of every currency that fails.
 */
export function assertBalanced(postings: PlannedPosting[]): void {
  for (const subset of [postings, postings.filter((p) => p.pending)]) {
    const failing = [...totalsByCurrency(subset)].filter(([, t]) => t.debit !== t.credit);
    if (failing.length === 0) continue;
    const byCurrency = Object.fromEntries(
      failing.map(([c, t]) => [c, { debit: t.debit.toString(), credit: t.credit.toString(), residual: (t.debit - t.credit).toString() }]),
    );
    const residual = new Map(failing.map(([c, t]) => [c, t.debit - t.credit] as const));
    throw TransactionErrors.error('unbalanced', {
      message:
        subset === postings
          ? `Debits and credits differ in ${failing.map(([c]) => c).join(', ')}`
          : 'Pending legs must balance among themselves in every currency',
      param: 'postings',
      details: { by_currency: byCurrency, residual_by_currency: mapToStrings(residual) },
    });
  }
}

/** Each posting with its direction flipped: the legs that undo `postings`. */
export function flipped(postings: PlannedPosting[]): PlannedPosting[] {
  return postings.map((p) => ({ ...p, direction: p.direction === 'debit' ? 'credit' : 'debit' }));
}

/** Sum of amounts per (account, currency, direction), for netting legs. */
export function legTotals(postings: PlannedPosting[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const p of postings) addTo(totals, legKey(p), p.amount);
  return totals;
}

export function legKey(p: Pick<PlannedPosting, 'account' | 'currency' | 'direction'>): string {
  return JSON.stringify([p.account, p.currency, p.direction]);
}

/** A stored posting as a plan leg (tags kept, pending as stored). */
export function plannedOf(p: PostingEntity): PlannedPosting {
  return { account: p.accountId, amount: BigInt(p.amount), currency: p.currency, direction: p.direction, pending: p.pending, tags: p.tags };
}
