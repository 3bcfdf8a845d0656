import { AccountType, normalSide } from '../accounts/account-kinds';

/** Running debit and credit totals of one account, as the balances row keeps them. */
export interface BalanceTotals {
  postedDebits: bigint;
  postedCredits: bigint;
  pendingDebits: bigint;
  pendingCredits: bigint;
}

export const ZERO_TOTALS: BalanceTotals = { postedDebits: 0n, postedCredits: 0n, pendingDebits: 0n, pendingCredits: 0n };

/**
 * The three figures of a balance, positive on the account's normal side: `posted` counts confirmed
 * postings, `pending` the signed open pending ones, `available` is posted minus open pending
 * outflows (pending inflows never count). The `none` overdraft check uses `available`.
 */
export interface BalanceFigures {
  posted: bigint;
  pending: bigint;
  available: bigint;
}

export function balanceFigures(type: AccountType, t: BalanceTotals): BalanceFigures {
  const debitNormal = normalSide(type) === 'debit';
  const net = (debits: bigint, credits: bigint) => (debitNormal ? debits - credits : credits - debits);
  const posted = net(t.postedDebits, t.postedCredits);
  const pendingOutflows = debitNormal ? t.pendingCredits : t.pendingDebits;
  return { posted, pending: net(t.pendingDebits, t.pendingCredits), available: posted - pendingOutflows };
}

/** Totals as Postgres returns them (numeric as strings). */
export interface BalanceTotalsRow {
  postedDebits: string;
  postedCredits: string;
  pendingDebits: string;
  pendingCredits: string;
}

export function totalsOf(row: BalanceTotalsRow): BalanceTotals {
  return {
    postedDebits: BigInt(row.postedDebits),
    postedCredits: BigInt(row.postedCredits),
    pendingDebits: BigInt(row.pendingDebits),
    pendingCredits: BigInt(row.pendingCredits),
  };
}
