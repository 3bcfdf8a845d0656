import { BalanceFigures } from '../books/balance-figures';

/** A balance's wire form: its three figures as minor-unit strings. */
export function presentBalance(account: string, currency: string, figures: BalanceFigures, asOf?: Date) {
  return {
    object: 'balance' as const,
    account,
    currency,
    posted: figures.posted.toString(),
    pending: figures.pending.toString(),
    available: figures.available.toString(),
    ...(asOf && { as_of: asOf.toISOString() }),
  };
}
