import { booksStack } from '../books-api';

describe('Postings, statements and point-in-time balances', () => {
  const api = booksStack('postings', {
    accounts: [
      'cash',
      'capital',
      'assets',
      ['assets:bank', 'asset', 'USD', { parent_id: 'assets' }],
      ['assets:bank:sub', 'asset', 'USD', { parent_id: 'assets:bank' }],
      ['assets:eur', 'asset', 'EUR', { parent_id: 'assets' }],
      'eur:capital',
    ],
  });

  beforeAll(async () => {
    const dated = (amount: string, day: string, tags = {}) =>
      api
        .post('/transactions', {
          postings: [
            { account: 'cash', amount, currency: 'USD', direction: 'debit', tags },
            { account: 'capital', amount, currency: 'USD', direction: 'credit' },
          ],
          value_date: `2026-03-${day}T12:00:00Z`,
        })
        .expect(201);
    await dated('100', '01', { channel: 'web' });
    await dated('200', '02', { channel: 'pos' });
    await dated('300', '03', { channel: 'web', region: 'eu' });
    await api.transfer('cash', 'cash', '1').expect(201); // a self-transfer nets to zero
  });

  it('lists ledger postings in id order with cursors and limit up to 500', async () => {
    const all = await api.get('/postings').expect(200);
    expect(all.body.data).toHaveLength(8);
    const ids = all.body.data.map((p: { id: number }) => p.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const first = await api.get('/postings?limit=3').expect(200);
    expect(first.body).toMatchObject({ has_more: true });
    const next = await api.get(`/postings?limit=3&cursor=${first.body.next_cursor}`).expect(200);
    expect(next.body.data[0].id).toBe(ids[3]);
    await api.get('/postings?limit=500').expect(200);
    await api.get('/postings?limit=501').expect(422);
    expect((await api.get('/postings?account=capital').expect(200)).body.data).toHaveLength(3);
    expect((await api.get('/postings?before_value_date=2026-03-02T12:00:00Z').expect(200)).body.data).toHaveLength(2);
    expect((await api.get('/postings?reconciled=true').expect(200)).body.data).toHaveLength(0);
  });

  it("lists an account's postings filtered by tags", async () => {
    const web = await api.get('/accounts/cash/postings?tags[channel]=web').expect(200);
    expect(web.body.data.map((p: { amount: string }) => p.amount)).toEqual(['100', '300']);
    const both = await api.get('/accounts/cash/postings?tags[channel]=web&tags[region]=eu').expect(200);
    expect(both.body.data.map((p: { amount: string }) => p.amount)).toEqual(['300']);
    await api.get('/accounts/ghost/postings').expect(404);
  });

  it('reads balances at an instant by value_date', async () => {
    const at = await api.get('/accounts/cash/balance?at=2026-03-02T12:00:00Z').expect(200);
    expect(at.body.data).toEqual({
      object: 'balance',
      account: 'cash',
      currency: 'USD',
      posted: '300',
      pending: '0',
      available: '300',
      as_of: '2026-03-02T12:00:00.000Z',
    });
    expect((await api.balance('cash')).posted).toBe('600');
    await api.get('/accounts/cash/balance?at=yesterday').expect(422);
    await api.get('/accounts/ghost/balance').expect(404);
  });

  it('builds a statement with opening, running and closing balances', async () => {
    const res = await api.get('/accounts/cash/statement?from=2026-03-02T00:00:00Z&to=2026-03-04T00:00:00Z').expect(200);
    expect(res.body.data).toMatchObject({
      object: 'account_statement',
      account: 'cash',
      currency: 'USD',
      period: { from: '2026-03-02T00:00:00.000Z', to: '2026-03-04T00:00:00.000Z' },
      opening_balance: { posted: '100', pending: '0', currency: 'USD' },
      closing_balance: { posted: '600', pending: '0', currency: 'USD' },
      entry_count: 2,
      truncated: false,
    });
    expect(res.body.data.entries.map((e: { running_balance: string }) => e.running_balance)).toEqual(['300', '600']);
    const truncated = await api.get('/accounts/cash/statement?limit=1').expect(200);
    expect(truncated.body.data).toMatchObject({ entry_count: 1, truncated: true, period: { from: null } });
    await api.get('/accounts/cash/statement?limit=5001').expect(422);
  });

  it('sums a category through parent_id at any depth, refusing mixed currencies', async () => {
    await api.transfer('capital', 'assets:bank', '10').expect(201);
    await api.transfer('capital', 'assets:bank:sub', '5').expect(201);
    const bank = await api.get('/accounts/assets:bank/category_balance').expect(200);
    expect(bank.body.data).toEqual({
      object: 'category_balance',
      root: 'assets:bank',
      currency: 'USD',
      member_count: 2,
      members: ['assets:bank', 'assets:bank:sub'],
      posted: '15',
      pending: '0',
      available: '15',
    });
    const mixed = await api.get('/accounts/assets/category_balance').expect(422);
    expect(mixed.body.error.code).toBe('invalid_request');
    await api.get('/accounts/ghost/category_balance').expect(404);
  });
});
