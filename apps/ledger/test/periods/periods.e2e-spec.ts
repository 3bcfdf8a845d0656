import { accessToken } from '../ledger-fixtures';
import { BooksApi, booksStack } from '../books-api';

describe('Period closes', () => {
  const api = booksStack('periods', { accounts: ['cash', 'capital'] });
  const close = (body: object) =>
    api.post('/period_closes', { period_start: '2026-01-01T00:00:00Z', period_end: '2026-02-01T00:00:00Z', closed_by_label: 'controller', ...body });

  beforeAll(async () => {
    await api.transfer('capital', 'cash', '100', 'USD', { value_date: '2026-01-10T00:00:00Z' }).expect(201);
    await api.transfer('capital', 'cash', '7', 'USD', { value_date: '2026-02-10T00:00:00Z' }).expect(201);
  });

  it('closes a balanced period silently with the trial balance frozen at period_end', async () => {
    const res = await close({ note: 'January' }).expect(201);
    expect(res.body.data).toMatchObject({
      object: 'period_close',
      period_start: '2026-01-01T00:00:00.000Z',
      period_end: '2026-02-01T00:00:00.000Z',
      closed_by_label: 'controller',
      note: 'January',
      forced: false,
      forced_by_label: null,
      reopened_at: null,
      reopened_by_label: null,
      trial_balance: {
        object: 'trial_balance',
        ledger_id: api.client.ledgerId,
        as_of: '2026-02-01T00:00:00.000Z',
        healthy: true,
        totals_by_currency: { USD: { debit: '100', credit: '100', residual: '0' } },
      },
    });
    expect(res.body.data.trial_balance.accounts).toEqual(
      expect.arrayContaining([{ account: 'cash', name: 'cash', type: 'asset', currency: 'USD', posted: '100', pending: '0', debit_total: '100', credit_total: '0' }]),
    );
    expect(await api.events('period.closed_forced')).toHaveLength(0);
    expect((await api.get('/events?limit=200').expect(200)).body.data.filter((e: { type: string }) => e.type.startsWith('period.'))).toHaveLength(0);
  });

  it('refuses postings dated inside the closed period, in the service and in the database', async () => {
    const before = await api.balance('cash');
    const res = await api.transfer('capital', 'cash', '1', 'USD', { value_date: '2026-01-20T00:00:00Z' }).expect(409);
    expect(res.body.error).toMatchObject({ code: 'period_closed', param: 'value_date' });
    expect(await api.balance('cash')).toEqual(before);
    await api.transfer('capital', 'cash', '1', 'USD', { value_date: '2026-02-01T00:00:00Z' }).expect(201);
    // The trigger holds even for writes that bypass the service.
    const db = api.db;
    const [tx] = await db.query(`SELECT id FROM transactions LIMIT 1`);
    await expect(
      db.query(
        `INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, value_date)
         VALUES ($1, $2, 'cash', 1, 'USD', 'debit', '2026-01-15T00:00:00Z')`,
        [api.client.ledgerId, tx.id],
      ),
    ).rejects.toThrow(/closed period/);
    await expect(db.query(`UPDATE postings SET amount = 5 WHERE account_id = 'cash'`)).rejects.toThrow(/immutable/);
    await expect(db.query(`DELETE FROM postings`)).rejects.toThrow(/not allowed/);
  });

  it('reverses a transaction of a closed period with a reversal dated now', async () => {
    const original = (await api.get('/transactions?value_date_to=2026-02-01T00:00:00Z').expect(200)).body.data[0];
    const reversal = await api.post(`/transactions/${original.id}/reverse`).expect(201);
    expect(reversal.body.data.metadata).toEqual({ _reverses_value_date: original.value_date });
    expect(new Date(reversal.body.data.value_date).getTime()).toBeGreaterThan(Date.parse('2026-02-01T00:00:00Z'));
  });

  it('refuses to commit pending legs dated inside a closed period (its posted books would change), and voids them by a reversal dated now', async () => {
    // A ledger of its own: the closes and events of the shared one are counted by other tests.
    const own = await BooksApi.start(api.t);
    await own.account('cash', 'asset');
    await own.account('capital', 'equity');
    const held = await own.post('/transactions', {
      value_date: '2024-06-10T00:00:00Z',
      postings: [
        { account: 'cash', amount: '5', currency: 'USD', direction: 'debit', pending: true },
        { account: 'capital', amount: '5', currency: 'USD', direction: 'credit', pending: true },
      ],
    });
    expect(held.status).toBe(201);
    const period = { period_start: '2024-06-01T00:00:00Z', period_end: '2024-07-01T00:00:00Z', closed_by_label: 'controller' };
    await own.post('/period_closes', period).expect(201);
    const commit = await own.post(`/transactions/${held.body.data.id}/commit`, {}).expect(409);
    expect(commit.body.error).toMatchObject({ code: 'period_closed', param: 'value_date' });
    expect(await own.balance('cash')).toMatchObject({ posted: '0', pending: '5', available: '0' });
    const reversal = await own.post(`/transactions/${held.body.data.id}/reverse`, {}).expect(201);
    expect(reversal.body.data.metadata).toEqual({ _reverses_value_date: '2024-06-10T00:00:00.000Z' });
    expect(await own.balance('cash')).toMatchObject({ posted: '0', pending: '0', available: '0' });
  });

  it('refuses overlapping closes and bad bounds, lists without paging, reads by id', async () => {
    const overlap = await close({ period_start: '2026-01-15T00:00:00Z', period_end: '2026-01-20T00:00:00Z' }).expect(409);
    expect(overlap.body.error.code).toBe('already_exists');
    const bounds = await close({ period_start: '2026-03-01T00:00:00Z', period_end: '2026-02-01T00:00:00Z' }).expect(422);
    expect(bounds.body.error).toMatchObject({ code: 'invalid_request', param: 'period_end' });
    await close({ closed_by_label: undefined }).expect(422);
    const list = await api.get('/period_closes?limit=1').expect(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.body.data[0]).not.toHaveProperty('trial_balance');
    const one = await api.get(`/period_closes/${list.body.data[0].id}`).expect(200);
    expect(one.body.data.trial_balance.healthy).toBe(true);
    await api.get('/period_closes/00000000-0000-0000-0000-000000000000').expect(404);
  });

  it('needs ledger:period_close to close or reopen, ledger:read to list', async () => {
    const writer = await api.fx.client({ scopes: ['ledger:read', 'ledger:write'], organizationId: api.client.organizationId });
    const token = await accessToken(api.t, writer);
    const other = new BooksApi(api.t, token, writer);
    const res = await other.post('/period_closes', { period_start: '2027-01-01T00:00:00Z', period_end: '2027-02-01T00:00:00Z', closed_by_label: 'x' }).expect(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toContain('ledger:period_close');
    await other.get('/period_closes').expect(200);
  });

  it('reopens once (409 on a second reopen), after which postings are accepted again', async () => {
    const [closed] = (await api.get('/period_closes').expect(200)).body.data;
    const res = await api.post(`/period_closes/${closed.id}/reopen`, { reopened_by_label: 'cfo' }).expect(200);
    expect(res.body.data).toMatchObject({ reopened_by_label: 'cfo', reopened_at: expect.any(String) });
    const again = await api.post(`/period_closes/${closed.id}/reopen`, { reopened_by_label: 'cfo' }).expect(409);
    expect(again.body.error.code).toBe('already_exists');
    await api.post(`/period_closes/${closed.id}/reopen`, {}).expect(422);
    await api.post('/period_closes/00000000-0000-0000-0000-000000000000/reopen', { reopened_by_label: 'x' }).expect(404);
    await api.transfer('capital', 'cash', '1', 'USD', { value_date: '2026-01-20T00:00:00Z' }).expect(201);
    expect((await api.get('/period_closes?include_reopened=false').expect(200)).body.data).toHaveLength(0);
    expect(await api.events('period.reopened')).toHaveLength(1);
  });

  it('refuses an imbalanced close with the residual per currency unless forced, and records who forced', async () => {
    // Books can only go out of balance from outside the API (a bad import, say); simulate one.
    const db = api.db;
    const [tx] = await db.query(`SELECT id FROM transactions LIMIT 1`);
    await db.query(
      `INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, value_date)
       VALUES ($1, $2, 'cash', 42, 'USD', 'debit', '2025-06-01T00:00:00Z')`,
      [api.client.ledgerId, tx.id],
    );
    const body = { period_start: '2025-01-01T00:00:00Z', period_end: '2025-12-01T00:00:00Z' };
    const refused = await close(body).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'period_close_imbalanced', details: { residual_by_currency: { USD: '42' } } });
    const forced = await close({ ...body, force: true, closed_by_label: 'auditor' }).expect(201);
    expect(forced.body.data).toMatchObject({ forced: true, forced_by_label: 'auditor', forced_at: expect.any(String), trial_balance: { healthy: false } });
    const events = await api.events('period.closed_forced');
    expect(events.map((e) => e.resource_id)).toEqual([forced.body.data.id]);
  });
});
