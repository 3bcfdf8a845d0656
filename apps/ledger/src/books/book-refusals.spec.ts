import { ApiError } from '@bursar/errors';
import { BOOK_RULES, KeyTaken, RefusedPlan, refusalOf } from './book-refusals';
import { EngineRefusal } from './engine-batch';

const plan: RefusedPlan = {
  idempotencyKey: 'k-1',
  valueDate: new Date('2026-01-31T00:00:00Z'),
  postings: [
    { account: 'cash', amount: 5n, currency: 'USD', direction: 'debit', pending: false, tags: {} },
    { account: 'ghost', amount: 5n, currency: 'USD', direction: 'credit', pending: false, tags: {} },
  ],
  conditions: [{ account: 'cash', minAvailable: 10n }],
  externalRefs: [{ rail: 'ach', kind: 'trace', value: 't-1', metadata: {} }],
};

const answered = (r: EngineRefusal) => {
  const err = refusalOf(plan, r);
  if (!(err instanceof ApiError)) throw new Error(`not an API error: ${String(err)}`);
  return { status: err.status, code: err.code, param: err.extras.param, details: err.extras.details };
};

describe('book refusals', () => {
  it('has a rule for every refusal the engine answers', () => {
    expect(Object.keys(BOOK_RULES).sort()).toEqual(
      ['account_closed', 'currency_mismatch', 'duplicate_external_ref', 'insufficient_funds', 'key_taken', 'period_closed', 'precondition_failed', 'unknown_account'],
    );
  });

  it('names the postings, condition or ref the engine points at', () => {
    expect(answered({ error: 'unknown_account', postings: [1] })).toEqual({ status: 422, code: 'unknown_account', param: 'postings.1.account', details: { accounts: ['ghost'] } });
    expect(answered({ error: 'currency_mismatch', posting: 0, account_currency: 'EUR' })).toMatchObject({
      status: 422,
      param: 'postings.0.currency',
      details: { account: 'cash', account_currency: 'EUR', posting_currency: 'USD' },
    });
    expect(answered({ error: 'account_closed', posting: 0 })).toMatchObject({ status: 409, param: 'postings.0.account', details: { account: 'cash' } });
    expect(answered({ error: 'precondition_failed', condition: 0, failed: 'min_available_balance', actual: '3' })).toMatchObject({
      status: 409,
      param: 'conditions.0',
      details: { account: 'cash', condition: 'min_available_balance', actual: '3' },
    });
    expect(answered({ error: 'duplicate_external_ref', ref: 0 })).toMatchObject({ status: 409, details: { rail: 'ach', kind: 'trace', value: 't-1' } });
    expect(answered({ error: 'period_closed' })).toMatchObject({ status: 409, code: 'period_closed', param: 'value_date' });
  });

  it('shows an overdraft with the figures the engine computed, and nothing else', () => {
    const r = { error: 'insufficient_funds', account: 'cash', currency: 'USD', available: '4', available_after: '-1', overdraft_limit: '0' } as const;
    expect(answered(r)).toEqual({ status: 422, code: 'insufficient_funds', param: undefined, details: { account: 'cash', currency: 'USD', available: '4', available_after: '-1', overdraft_limit: '0' } });
  });

  it('answers a used transaction key as KeyTaken, for the replay', () => {
    const err = refusalOf(plan, { error: 'key_taken' });
    expect(err).toBeInstanceOf(KeyTaken);
    expect((err as KeyTaken).key).toBe('k-1');
  });
});
