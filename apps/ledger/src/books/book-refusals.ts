import { TransactionErrors } from '../transactions/transaction-errors';
import { TransactionPlan } from './transaction-plan';
import type { EngineRefusal } from './engine-batch';

/** Raised when the idempotency key already names a transaction; nothing was written. */
export class KeyTaken extends Error {
  constructor(readonly key: string) {
    super(`idempotency key ${key} already names a transaction`);
  }
}

/** What a refusal names: the plan's parts its error points at. */
export type RefusedPlan = Pick<TransactionPlan, 'idempotencyKey' | 'valueDate' | 'postings' | 'conditions' | 'externalRefs'>;

/**
 * The books rules as the engine (sql/ledger-write-batch.sql) judges them, in its order: each rule's
 * refusal rendered as the API's error. The engine decides; this table only names and explains.
 */
export const BOOK_RULES: { [E in EngineRefusal['error']]: (plan: RefusedPlan, r: Extract<EngineRefusal, { error: E }>) => Error } = {
  // A used transaction key is a replay: the service answers the transaction it names.
  key_taken: (plan) => new KeyTaken(plan.idempotencyKey ?? ''),
  unknown_account: (plan, r) => {
    const names = r.postings.map((i) => plan.postings[i].account);
    return TransactionErrors.error('unknown_account', {
      message: `No account ${names.join(', ')} in this ledger`,
      param: `postings.${r.postings[0]}.account`,
      details: { accounts: [...new Set(names)] },
    });
  },
  currency_mismatch: (plan, r) => {
    const p = plan.postings[r.posting];
    return TransactionErrors.error('currency_mismatch', {
      message: `Posting ${r.posting} is in ${p.currency} but account ${p.account} holds ${r.account_currency}`,
      param: `postings.${r.posting}.currency`,
      details: { account: p.account, account_currency: r.account_currency, posting_currency: p.currency },
    });
  },
  account_closed: (plan, r) =>
    TransactionErrors.error('account_closed', { param: `postings.${r.posting}.account`, details: { account: plan.postings[r.posting].account } }),
  precondition_failed: (plan, r) => {
    const { account } = plan.conditions[r.condition];
    return TransactionErrors.error('precondition_failed', {
      message: `Condition ${r.condition} on account ${account} does not hold (${r.failed})`,
      param: `conditions.${r.condition}`,
      details: { account, condition: r.failed, actual: r.actual },
    });
  },
  insufficient_funds: (_plan, r) =>
    TransactionErrors.error('insufficient_funds', {
      message: `Account ${r.account} would fall to an available balance of ${r.available_after} (floor ${-BigInt(r.overdraft_limit)})`,
      hint: 'Fund the account first, or raise its overdraft_limit on a new account',
      details: { account: r.account, currency: r.currency, available: r.available, available_after: r.available_after, overdraft_limit: r.overdraft_limit },
    }),
  period_closed: (plan) =>
    TransactionErrors.error('period_closed', {
      message: `value_date ${plan.valueDate.toISOString()} falls inside a closed period`,
      param: 'value_date',
      hint: 'Date the transaction after the closed period, or reopen the period first',
    }),
  duplicate_external_ref: (plan, r) => {
    const ref = plan.externalRefs[r.ref];
    return TransactionErrors.error('duplicate_external_ref', { param: 'external_refs', details: { rail: ref.rail, kind: ref.kind, value: ref.value } });
  },
};

/** The error of an engine refusal of `plan`. */
export function refusalOf(plan: RefusedPlan, r: EngineRefusal): Error {
  const rule = BOOK_RULES[r.error] as (plan: RefusedPlan, r: EngineRefusal) => Error;
  return rule(plan, r);
}
