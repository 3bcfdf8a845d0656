import { randomUUID } from 'node:crypto';
import { BooksApi, Json, startBooksApp } from '../books-api';
import { LedgerTestApp } from '../ledger-test-app';

type Posting = { account: string; direction: string; amount: string };

describe('Reserves', () => {
  let t: LedgerTestApp;
  let api: BooksApi;

  /** Books with a client-held reserve template, merchants funded through a custodied bank account. */
  async function books(): Promise<BooksApi> {
    const b = await BooksApi.start(t);
    await b.post('/account_templates', { name: 'merchant_reserve', accounting_type: 'liability', fund_classification: 'client_held' }).expect(201);
    await b.post('/account_templates', { name: 'asset_reserve', accounting_type: 'asset' }).expect(201);
    await b.account('bank', 'asset', 'USD', { custody_provider: 'acme_bank', custody_external_id: 'acct-1' });
    await b.account('m1', 'liability', 'USD', { fund_classification: 'client_held' });
    await b.account('m2', 'liability', 'USD', { fund_classification: 'client_held' });
    await b.account('m3', 'liability', 'USD', { fund_classification: 'client_held', overdraft_policy: 'allowed' });
    await b.account('fees', 'revenue');
    await b.account('eur:m1', 'liability', 'EUR', { fund_classification: 'client_held' });
    return b;
  }

  const reserve = (b: BooksApi, source: string, amount: string, extra: Json = {}, key?: string | null) =>
    b.post('/reserves', { source_account_id: source, template: 'merchant_reserve', counterparty_ref: source, currency: 'USD', amount, ...extra }, key);

  const posted = async (b: BooksApi, id: string) => (await b.balance(id)).posted;

  beforeAll(async () => {
    t = await startBooksApp('reserves');
    api = await books();
    await api.transfer('m1', 'bank', '1000').expect(201);
    await api.transfer('m2', 'bank', '1000').expect(201);
  });
  afterAll(() => t.close());

  it('creates the restricted account on first use, reuses it after, and writes one balanced transaction each time', async () => {
    const first = await reserve(api, 'm1', '300', { currency: 'usd', expires_at: '2027-01-01T00:00:00Z', metadata: { note: 'rolling' } }).expect(201);
    const op = first.body.data;
    expect(op).toEqual({
      object: 'reserve_op_result',
      reserve_account_id: expect.stringMatching(/^reserve:[0-9a-f]{32}$/),
      transaction_id: expect.any(String),
      balance: '300',
      remaining_balance: '700',
    });
    const account = (await api.get(`/accounts/${op.reserve_account_id}`).expect(200)).body.data;
    expect(account).toMatchObject({
      account_kind: 'restricted',
      counterparty_ref: 'm1',
      template: 'merchant_reserve',
      type: 'liability',
      currency: 'USD',
      fund_classification: 'client_held',
    });
    const tx = (await api.get(`/transactions/${op.transaction_id}`).expect(200)).body.data;
    expect(tx.postings.map((p: Posting) => [p.account, p.direction, p.amount])).toEqual(
      expect.arrayContaining([
        ['m1', 'debit', '300'],
        [op.reserve_account_id, 'credit', '300'],
      ]),
    );
    expect(tx.metadata).toMatchObject({ note: 'rolling', expires_at: '2027-01-01T00:00:00Z', _reserve_op: 'sweep' });

    const second = (await reserve(api, 'm1', '200').expect(201)).body.data;
    expect(second).toMatchObject({ reserve_account_id: op.reserve_account_id, balance: '500', remaining_balance: '500' });
    expect(await posted(api, op.reserve_account_id)).toBe('500');
    expect(await posted(api, 'm1')).toBe('500');
    const created = (await api.events('account.created')).filter((e) => e.resource_id === op.reserve_account_id);
    expect(created).toHaveLength(1);
  });

  it('replays a keyed reserve with the original answer and writes nothing more', async () => {
    const key = randomUUID();
    const first = await reserve(api, 'm1', '10', {}, key).expect(201);
    const replay = await reserve(api, 'm1', '10', {}, key).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    expect(await posted(api, first.body.data.reserve_account_id)).toBe(first.body.data.balance);
    expect((await reserve(api, 'm1', '10', {}, null).expect(422)).body.error.code).toBe('missing_idempotency_key');
  });

  it('refuses with the reference codes and writes nothing', async () => {
    const before = await posted(api, 'm2');
    const code = async (res: Promise<{ body: { error: { code: string; param?: string } } }>) => (await res).body.error;
    expect(await code(reserve(api, 'm2', '10', { currency: 'EUR' }).expect(422))).toMatchObject({ code: 'reserve_currency_mismatch' });
    expect(await code(reserve(api, 'm2', '10', { template: 'nope' }).expect(422))).toMatchObject({ code: 'account_template_unknown' });
    // m2 allows overdrafts, but a reserve never takes its source below zero.
    const short = await code(reserve(api, 'm2', '1001').expect(422));
    expect(short).toMatchObject({ code: 'reserve_insufficient_funds', details: { available: '1000', amount: '1001' } });
    expect(await code(reserve(api, 'nobody', '10').expect(422))).toMatchObject({ code: 'unknown_account', param: 'source_account_id' });
    expect(await code(reserve(api, 'm2', '10', { template: 'asset_reserve' }).expect(422))).toMatchObject({ code: 'invalid_request', param: 'template' });
    for (const amount of ['0', '-5', '1.5', 'ten']) {
      expect(await code(reserve(api, 'm2', amount).expect(422))).toMatchObject({ code: 'invalid_request' });
    }
    expect(await posted(api, 'm2')).toBe(before);
    const made = await api.get('/accounts?counterparty_ref=m2').expect(200);
    expect(made.body.data).toEqual([]);
  });

  it('releases and claws back out of a reserve, refusing more than it holds', async () => {
    await api.transfer('m3', 'bank', '400').expect(201);
    const id = (await reserve(api, 'm3', '300').expect(201)).body.data.reserve_account_id;
    const released = (await api.post(`/reserves/${id}/release`, { target_account_id: 'm3', amount: '100' }).expect(201)).body.data;
    expect(released).toMatchObject({ object: 'reserve_op_result', reserve_account_id: id, balance: '200', remaining_balance: '200' });
    expect(await posted(api, 'm3')).toBe('200');

    const clawed = (await api.post(`/reserves/${id}/claw`, { operator_account_id: 'fees', amount: '50', reason_code: 'chargeback' }).expect(201)).body.data;
    expect(clawed).toMatchObject({ balance: '150', remaining_balance: '150' });
    expect(await posted(api, 'fees')).toBe('50');
    const tx = (await api.get(`/transactions/${clawed.transaction_id}`).expect(200)).body.data;
    expect(tx.metadata).toMatchObject({ reason_code: 'chargeback', _reserve_op: 'clawed' });
    expect(tx.postings.map((p: Posting) => [p.account, p.direction, p.amount])).toEqual(
      expect.arrayContaining([
        [id, 'debit', '50'],
        ['fees', 'credit', '50'],
      ]),
    );

    const over = await api.post(`/reserves/${id}/release`, { target_account_id: 'm3', amount: '151' }).expect(422);
    expect(over.body.error).toMatchObject({ code: 'reserve_release_exceeds_balance', details: { available: '150' } });
    const overClaw = await api.post(`/reserves/${id}/claw`, { operator_account_id: 'fees', amount: '151', reason_code: 'x' }).expect(422);
    expect(overClaw.body.error.code).toBe('reserve_release_exceeds_balance');
    const eur = await api.post(`/reserves/${id}/release`, { target_account_id: 'eur:m1', amount: '1' }).expect(422);
    expect(eur.body.error.code).toBe('reserve_currency_mismatch');
    await api.post(`/reserves/${id}/claw`, { operator_account_id: 'fees', amount: '1' }).expect(422);
    await api.post('/reserves/reserve:nope/release', { target_account_id: 'm3', amount: '1' }).expect(404);
    await api.post('/reserves/m3/release', { target_account_id: 'm1', amount: '1' }).expect(404);
    await api.post('/reserves/m3/claw', { operator_account_id: 'fees', amount: '1', reason_code: 'x' }).expect(404);
    expect(await posted(api, id)).toBe('150');

    const emptied = (await api.post(`/reserves/${id}/release`, { target_account_id: 'm3', amount: '150' }).expect(201)).body.data;
    expect(emptied).toMatchObject({ balance: '0' });
  });

  it('emits reserve.swept, reserve.released and reserve.clawed with the transaction', async () => {
    await api.transfer('m3', 'bank', '100').expect(201);
    const swept = (await reserve(api, 'm3', '60').expect(201)).body.data;
    const id = swept.reserve_account_id;
    const released = (await api.post(`/reserves/${id}/release`, { target_account_id: 'm3', amount: '10' }).expect(201)).body.data;
    const clawed = (await api.post(`/reserves/${id}/claw`, { operator_account_id: 'fees', amount: '5', reason_code: 'fraud' }).expect(201)).body.data;
    const find = async (type: string, transaction: string) => {
      const events = (await api.events(type)).filter((e) => (e.data as Json).transaction_id === transaction);
      expect(events).toHaveLength(1);
      return events[0];
    };
    expect(await find('reserve.swept', swept.transaction_id)).toMatchObject({
      resource_id: id,
      data: { ...swept, source_account_id: 'm3', counterparty_ref: 'm3', template: 'merchant_reserve', currency: 'USD', amount: '60' },
    });
    expect(await find('reserve.released', released.transaction_id)).toMatchObject({ resource_id: id, data: { target_account_id: 'm3', amount: '10' } });
    expect(await find('reserve.clawed', clawed.transaction_id)).toMatchObject({ resource_id: id, data: { reason_code: 'fraud', amount: '5' } });
    const created = (await api.events('transaction.created')).map((e) => e.resource_id);
    expect(created).toEqual(expect.arrayContaining([swept.transaction_id, released.transaction_id, clawed.transaction_id]));
  });

  it('lets exactly the affordable number of parallel reserves through, creating the account once', async () => {
    const b = await books();
    await b.transfer('m1', 'bank', '1000').expect(201);
    const results = await Promise.all(Array.from({ length: 10 }, () => reserve(b, 'm1', '150')));
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(6);
    expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body.error?.code])).toEqual(
      Array.from({ length: 4 }, () => [422, 'reserve_insufficient_funds']),
    );
    const id = ok[0].body.data.reserve_account_id;
    expect(new Set(ok.map((r) => r.body.data.reserve_account_id))).toEqual(new Set([id]));
    expect(await posted(b, id)).toBe('900');
    expect(await posted(b, 'm1')).toBe('100');
    const postings = (await b.get(`/accounts/${id}/postings`).expect(200)).body.data as { amount: string }[];
    expect(postings.reduce((sum, p) => sum + BigInt(p.amount), 0n)).toBe(900n);
    expect((await b.get('/accounts?kind=restricted').expect(200)).body.data).toHaveLength(1);
    expect((await b.get('/reports/trial_balance').expect(200)).body.data.healthy).toBe(true);
  });

  it('reports reserves outstanding and fund segregation, in JSON and CSV', async () => {
    const b = await books();
    await b.transfer('m1', 'bank', '1000', 'USD', { value_date: '2026-01-10T18:00:00Z' }).expect(201);
    await b.transfer('m2', 'bank', '500', 'USD', { value_date: '2026-01-12T09:00:00Z' }).expect(201);
    const r1 = (await reserve(b, 'm1', '300').expect(201)).body.data.reserve_account_id;
    const r2 = (await reserve(b, 'm2', '200').expect(201)).body.data.reserve_account_id;
    await b.post(`/reserves/${r2}/claw`, { operator_account_id: 'fees', amount: '50', reason_code: 'loss' }).expect(201);

    const outstanding = (await b.get('/reports/reserves_outstanding').expect(200)).body.data;
    expect(outstanding).toMatchObject({ object: 'reserves_outstanding', ledger_id: b.client.ledgerId, reserve_account_count: 2 });
    expect(outstanding.entries).toEqual(
      expect.arrayContaining([
        { reserve_account_id: r1, template: 'merchant_reserve', counterparty_ref: 'm1', currency: 'USD', posted: '300' },
        { reserve_account_id: r2, template: 'merchant_reserve', counterparty_ref: 'm2', currency: 'USD', posted: '150' },
      ]),
    );
    expect(outstanding.totals_by_currency).toEqual({ USD: { posted: '450' } });
    const csv = await b.get('/reports/reserves_outstanding?format=csv').expect(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.text.split('\r\n')[0]).toBe('section,reserve_account_id,template,counterparty_ref,currency,posted');
    expect(csv.text).toContain('total,,,,USD,450');

    const now = (await b.get('/reports/fund_segregation').expect(200)).body.data;
    expect(now).toMatchObject({ object: 'report', report: 'fund_segregation' });
    // Client-held: merchants and their reserves, 1500 less the 50 clawed to revenue; custody: the bank.
    expect(now.by_currency).toEqual([
      {
        currency: 'USD',
        client_held_total: '1450',
        custody_held_total: '1500',
        delta: '50',
        custody_breakdown: [{ custody_provider: 'acme_bank', custody_external_id: 'acct-1', balance: '1500' }],
      },
      { currency: 'EUR', client_held_total: '0', custody_held_total: '0', delta: '0', custody_breakdown: [] },
    ].sort((x, y) => x.currency.localeCompare(y.currency)));
    const day = (await b.get('/reports/fund_segregation?value_date=2026-01-10&currency=usd').expect(200)).body.data;
    expect(day).toMatchObject({ value_date: '2026-01-10' });
    expect(day.by_currency).toEqual([expect.objectContaining({ currency: 'USD', client_held_total: '1000', custody_held_total: '1000', delta: '0' })]);
    const before = (await b.get('/reports/fund_segregation?value_date=2026-01-09T23:59:59Z&currency=USD').expect(200)).body.data;
    expect(before.by_currency[0]).toMatchObject({ client_held_total: '0', custody_held_total: '0' });
    const segCsv = await b.get('/reports/fund_segregation?currency=USD').set('Accept', 'text/csv').expect(200);
    expect(segCsv.text).toContain('account,USD,acme_bank,acct-1,1500');
    expect(segCsv.text).toContain('total,USD,,,,1450,1500,50');
    await b.get('/reports/fund_segregation?value_date=yesterday').expect(422);
  });

  it('filters the account list by kind, reserve naming restricted', async () => {
    const ids = (res: { body: { data: { id: string; account_kind: string }[] } }) => res.body.data.map((a) => a.account_kind);
    const restricted = await api.get('/accounts?kind=restricted&limit=200').expect(200);
    expect(restricted.body.data.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids(restricted))).toEqual(new Set(['restricted']));
    const reserves = await api.get('/accounts?kind=reserve&limit=200').expect(200);
    expect(reserves.body.data).toEqual(restricted.body.data);
    const standard = await api.get('/accounts?kind=standard&limit=200').expect(200);
    expect(new Set(ids(standard))).toEqual(new Set(['standard']));
    await api.get('/accounts?kind=bogus').expect(422);
  });

  it('needs ledger:write to move funds and ledger:read for the reports', async () => {
    const reader = await BooksApi.start(t, ['ledger:read']);
    const refused = await reader.post('/reserves', { source_account_id: 'm1', template: 'merchant_reserve', counterparty_ref: 'm1', currency: 'USD', amount: '1' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    await reader.get('/reports/reserves_outstanding').expect(200);
  });

  it('is announced in capabilities and documented in OpenAPI', async () => {
    expect((await api.get('/_meta/capabilities').expect(200)).body.data.features.reserves).toBe(true);
    const doc = (await api.get('/openapi.json').expect(200)).body;
    for (const [path, schema] of [
      ['/ledger/v1/reserves', 'ReserveOpResultResponse'],
      ['/ledger/v1/reserves/{id}/release', 'ReserveOpResultResponse'],
      ['/ledger/v1/reserves/{id}/claw', 'ReserveOpResultResponse'],
    ]) {
      expect(JSON.stringify(doc.paths[path].post.responses['201'])).toContain(`#/components/schemas/${schema}`);
      const statuses = Object.keys(doc.paths[path].post.responses);
      expect(statuses).toEqual(expect.arrayContaining(['200', '201', '422']));
      expect(statuses.includes('404')).toBe(path !== '/ledger/v1/reserves');
    }
    expect(JSON.stringify(doc.paths['/ledger/v1/reports/reserves_outstanding'].get.responses['200'])).toContain('ReservesOutstandingReport');
    expect(JSON.stringify(doc.paths['/ledger/v1/reports/fund_segregation'].get.responses['200'])).toContain('FundSegregationReport');
    expect(doc.components.schemas.ReserveOpResultResponse.properties).toHaveProperty('remaining_balance');
  });
});
