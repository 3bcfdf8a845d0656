import { accountsOf, commitItem, itemOf, writeBatchJson, writtenOf } from './engine-batch';
import { TransactionPlan } from './transaction-plan';

const plan: TransactionPlan = {
  idempotencyKey: 'k-1',
  kind: 'reversal',
  reverses: '00000000-0000-4000-8000-000000000001',
  refund: null,
  metadata: { a: 1 },
  valueDate: new Date('2026-02-01T00:00:00Z'),
  postings: [
    { account: 'cash', amount: 5n, currency: 'USD', direction: 'credit', pending: false, tags: {} },
    { account: 'sales', amount: 5n, currency: 'USD', direction: 'debit', pending: false, tags: {} },
  ],
  externalRefs: [{ rail: 'ach', kind: 'trace', value: 't', metadata: {} }],
  conditions: [{ account: 'limit', minAvailable: 1n }],
  voids: { postingIds: ['9'], postings: [{ account: 'hold', amount: 2n, currency: 'USD', direction: 'debit', pending: true, tags: {} }] },
};

describe('engine batch', () => {
  const now = new Date('2026-02-02T00:00:00Z');
  const written = writtenOf('ledger-1', plan, ['11', '12'], now);

  it('builds the rows of a plan with its posting ids in order and one write time', () => {
    expect(written.transaction).toMatchObject({ ledgerId: 'ledger-1', idempotencyKey: 'k-1', kind: 'reversal', createdAt: now, bookingDate: now });
    expect(written.postings.map((p) => [p.id, p.accountId, p.amount, p.transactionId])).toEqual([
      ['11', 'cash', '5', written.transaction.id],
      ['12', 'sales', '5', written.transaction.id],
    ]);
    expect(written.refs).toMatchObject([{ transactionId: written.transaction.id, rail: 'ach', refKind: 'trace' }]);
    expect(() => writtenOf('ledger-1', plan, ['11'], now)).toThrow();
  });

  it('locks every account the plan names, moves or releases', () => {
    expect(accountsOf(plan)).toEqual(['cash', 'sales', 'limit', 'hold']);
  });

  it('sends a plan as an item with its conditions, voids and events, amounts as strings', () => {
    const event = { type: 'transaction.reversal_created', resourceId: written.transaction.id, data: { id: written.transaction.id } };
    const item = itemOf(plan, written, { events: [event], trace_context: null, idem: null, touched: true });
    expect(item).toMatchObject({
      id: written.transaction.id,
      key: 'k-1',
      conditions: [{ account: 'limit', min_available: '1' }],
      voids: ['9'],
      events: [{ type: 'transaction.reversal_created', resource_id: written.transaction.id }],
      touched: true,
    });
    expect(item.postings?.[0]).toEqual({ id: '11', account: 'cash', amount: '5', currency: 'USD', direction: 'credit', pending: false, tags: {} });
    expect(itemOf({ ...plan, voids: null }, written, { events: [], trace_context: null, idem: null, touched: false })).not.toHaveProperty('voids');
  });

  it('joins a head and items already serialized into one parameter', () => {
    const head = { ledger: 'l', organization: 'o', mode: 'test', stale_before: now, expired_before: null, accounts: ['cash'], dry_run: true, atomic: false };
    const commit = commitItem({ id: 't-1', valueDate: now });
    expect(JSON.parse(writeBatchJson(head, [JSON.stringify(commit), '{"id":"x"}']))).toEqual({
      ...JSON.parse(JSON.stringify(head)),
      items: [{ commit: 't-1', value_date: now.toISOString(), events: [], trace_context: null, idem: null, touched: false }, { id: 'x' }],
    });
  });
});
