import { balanceFigures } from '../books/balance-figures';
import type { WriteOutcome } from '../books/engine-batch';

export interface ReserveOpResult {
  object: 'reserve_op_result';
  reserve_account_id: string;
  transaction_id: string;
  balance: string;
  remaining_balance: string;
}

function postedAfter(outcome: WriteOutcome, account: string): string {
  const touched = outcome.touched.find((a) => a.id === account);
  if (!touched) throw new Error(`account ${account} was not part of the write`);
  return balanceFigures(touched.type, touched.totals).posted.toString();
}

/** The answer of a reserve operation, from the balances its write committed; `from` is the account the funds left. */
export function presentReserveOp(outcome: WriteOutcome, reserve: string, from: string): ReserveOpResult {
  return {
    object: 'reserve_op_result',
    reserve_account_id: reserve,
    transaction_id: outcome.transaction.id,
    balance: postedAfter(outcome, reserve),
    remaining_balance: postedAfter(outcome, from),
  };
}
