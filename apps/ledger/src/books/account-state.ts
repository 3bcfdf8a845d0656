import { AccountType } from '../accounts/account-kinds';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from './balance-figures';

/** An account as the books engine judges it: its rules and its running totals. */
export interface AccountState {
  id: string;
  type: AccountType;
  currency: string;
  status: 'open' | 'closed';
  overdraftPolicy: 'allowed' | 'none';
  overdraftLimit: bigint;
  lockVersion: number;
  totals: BalanceTotals;
}

/** The same as Postgres returns it (numeric as strings). */
export type AccountStateRow = Omit<AccountState, 'overdraftLimit' | 'totals'> & BalanceTotalsRow & { overdraftLimit: string };

export function accountStateOf(r: AccountStateRow): AccountState {
  return {
    id: r.id,
    type: r.type,
    currency: r.currency,
    status: r.status,
    overdraftPolicy: r.overdraftPolicy,
    overdraftLimit: BigInt(r.overdraftLimit),
    lockVersion: r.lockVersion,
    totals: totalsOf(r),
  };
}
