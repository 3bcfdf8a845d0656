import request from 'supertest';
import { booksStack, leg } from '../books-api';
import { accessToken } from '../ledger-fixtures';

const HUGE = '123456789012345678901234567890123456789012345678901234567890';

describe('Transactions', () => {
  const api = booksStack('transactions', {
    accounts: [
      'cash', 'deposits', 'wallet', 'eur:cash', 'eur:deposits',
      ['big:a', 'asset', 'TOKEN'],
      ['big:b', 'equity', 'TOKEN'],
    ],
  });

  it('records a balanced transaction, moves balances and emits transaction.created', async () => {
    const res = await api
      .post('/transactions', {
        postings: [
          { account: 'cash', amount: '1000', currency: 'usd', direction: 'debit', tags: { k: 'v' } },
          { account: 'deposits', amount: 1000, currency: 'USD', direction: 'credit' },
        ],
        metadata: { order: 'o-1' },
        value_date: '2026-01-15T10:00:00Z',
      })
      .expect(201);
    const tx = res.body.data;
    expect(tx).toMatchObject({
      object: 'transaction',
      status: 'posted',
      reverses: null,
      reversed_by: null,
      exchange_rate: null,
      metadata: { order: 'o-1' },
      value_date: '2026-01-15T10:00:00.000Z',
      external_refs: [],
      idempotency_key: expect.any(String),
    });
    expect(tx.postings).toEqual([
      expect.objectContaining({ object: 'posting', account: 'cash', amount: '1000', currency: 'USD', direction: 'debit', pending: false, tags: { k: 'v' }, transaction: tx.id }),
      expect.objectContaining({ account: 'deposits', amount: '1000', direction: 'credit' }),
    ]);
    expect(await api.balance('cash')).toEqual({ object: 'balance', account: 'cash', currency: 'USD', posted: '1000', pending: '0', available: '1000' });
    expect(await api.balance('deposits')).toMatchObject({ posted: '1000' });
    const events = await api.events('transaction.created');
    expect(events.map((e) => e.resource_id)).toContain(tx.id);
    const read = await api.get(`/transactions/${tx.id}`).expect(200);
    expect(read.body.data.postings).toHaveLength(2);
  });

  it('keeps amounts of any size exact', async () => {
    await api.transfer('big:b', 'big:a', HUGE, 'TOKEN').expect(201);
    await api.transfer('big:b', 'big:a', HUGE, 'TOKEN').expect(201);
    expect((await api.balance('big:a')).posted).toBe((BigInt(HUGE) * 2n).toString());
    expect((await api.balance('big:b')).posted).toBe((BigInt(HUGE) * 2n).toString());
  });

  it('refuses an unbalanced transaction with the residual per currency', async () => {
    const res = await api
      .post('/transactions', {
        postings: [
          { account: 'cash', amount: '100', currency: 'USD', direction: 'debit' },
          { account: 'deposits', amount: '90', currency: 'USD', direction: 'credit' },
          { account: 'eur:cash', amount: '5', currency: 'EUR', direction: 'debit' },
          { account: 'eur:deposits', amount: '5', currency: 'EUR', direction: 'credit' },
        ],
      })
      .expect(422);
    expect(res.body.error).toMatchObject({
      code: 'unbalanced',
      details: { by_currency: { USD: { debit: '100', credit: '90', residual: '10' } }, residual_by_currency: { USD: '10' } },
    });
  });

  it.each([
    [[{ account: 'cash', amount: '1', currency: 'EUR', direction: 'debit' }, { account: 'deposits', amount: '1', currency: 'EUR', direction: 'credit' }], 422, 'currency_mismatch'],
    [[{ account: 'ghost', amount: '1', currency: 'USD', direction: 'debit' }, { account: 'deposits', amount: '1', currency: 'USD', direction: 'credit' }], 422, 'unknown_account'],
    [[{ account: 'cash', amount: '0', currency: 'USD', direction: 'debit' }, { account: 'deposits', amount: '0', currency: 'USD', direction: 'credit' }], 422, 'invalid_request'],
    [[{ account: 'cash', amount: '1.5', currency: 'USD', direction: 'debit' }, { account: 'deposits', amount: '1.5', currency: 'USD', direction: 'credit' }], 422, 'invalid_request'],
    [[{ account: 'cash', amount: 1.5, currency: 'USD', direction: 'debit' }, { account: 'deposits', amount: 1.5, currency: 'USD', direction: 'credit' }], 422, 'invalid_request'],
    [[{ account: 'cash', amount: '1', currency: 'USD', direction: 'up' }, { account: 'deposits', amount: '1', currency: 'USD', direction: 'credit' }], 422, 'invalid_request'],
    [[{ account: 'cash', amount: '1', currency: 'USD', direction: 'debit' }], 422, 'invalid_request'],
  ])('refuses postings %j with %i %s and writes nothing', async (postings, status, code) => {
    const before = await api.balance('cash');
    const res = await api.post('/transactions', { postings }).expect(status);
    expect(res.body.error.code).toBe(code);
    expect(await api.balance('cash')).toEqual(before);
  });

  it('needs an Idempotency-Key and replays a retry with 200', async () => {
    const missing = await api.transfer('deposits', 'cash', '5', 'USD', {}, null as never).expect(422);
    expect(missing.body.error.code).toBe('missing_idempotency_key');
    const first = await api.transfer('deposits', 'cash', '5', 'USD', {}, 'key-replay-1').expect(201);
    const again = await api.transfer('deposits', 'cash', '5', 'USD', {}, 'key-replay-1').expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(first.body.data.idempotency_key).toBe('key-replay-1');
  });

  it('stores the key with the write: the original body replays, another body is 409 already_exists, the body key counts', async () => {
    const postings = [
      { account: 'cash', amount: '7', currency: 'USD', direction: 'debit' },
      { account: 'deposits', amount: '7', currency: 'USD', direction: 'credit' },
    ];
    const first = await api.post('/transactions', { postings, metadata: { n: '1' } }, 'key-stored-1').expect(201);
    const [row] = await api.db.query(`SELECT state, response_status FROM idempotency_keys WHERE key = 'key-stored-1'`);
    expect(row).toEqual({ state: 'completed', response_status: 201 });
    // A replay answers what the first request answered, not the transaction as it stands now.
    await api.patch(`/transactions/${first.body.data.id}`, { metadata: { n: '2' } }).expect(200);
    const again = await api.post('/transactions', { postings, metadata: { n: '1' } }, 'key-stored-1').expect(200);
    expect(again.body.data).toEqual(first.body.data);
    const other = await api.post('/transactions', { postings, metadata: { n: 'other' } }, 'key-stored-1').expect(409);
    expect(other.body.error).toMatchObject({ code: 'already_exists', param: 'Idempotency-Key' });

    const byBody = await api.post('/transactions', { postings, idempotency_key: 'body-key-1' }, null).expect(201);
    expect(byBody.body.data.idempotency_key).toBe('body-key-1');
    const retried = await api.post('/transactions', { postings, idempotency_key: 'body-key-1' }, null).expect(200);
    expect(retried.body.data.id).toBe(byBody.body.data.id);
  });

  it('refuses a key the client used on another ledger with 409 already_exists, and rolls the write back', async () => {
    const fx = api.fx;
    const free = await fx.client();
    const second = await fx.ledger(free.organizationId, 'test', 'second');
    await api.db.query('UPDATE oauth_clients SET ledger_id = NULL WHERE id = $1', [free.clientId]);
    const token = await accessToken(api.t, free);
    const post = (ledger: string, path: string, body: object, key: string) =>
      request(api.t.app.getHttpServer())
        .post(`/ledger/v1${path}`)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Ledger-Id', ledger)
        .set('Idempotency-Key', key)
        .send(body);
    for (const ledger of [free.ledgerId, second]) {
      for (const id of ['a', 'b']) await post(ledger, '/accounts', { id, name: id, type: 'asset', currency: 'USD' }, `${ledger}-${id}`).expect(201);
    }
    const postings = [
      { account: 'a', amount: '4', currency: 'USD', direction: 'debit' },
      { account: 'b', amount: '4', currency: 'USD', direction: 'credit' },
    ];
    await post(free.ledgerId, '/transactions', { postings }, 'cross-ledger-1').expect(201);
    // The second ledger has no transaction with this key, so only the key's row can refuse it.
    const res = await post(second, '/transactions', { postings }, 'cross-ledger-1').expect(409);
    expect(res.body.error).toMatchObject({ code: 'already_exists', param: 'Idempotency-Key' });
    const db = api.db;
    expect(await db.query('SELECT id FROM transactions WHERE ledger_id = $1', [second])).toEqual([]);
    expect(await db.query(`SELECT id FROM events WHERE ledger_id = $1 AND type = 'transaction.created'`, [second])).toEqual([]);
  });

  it('enforces overdraft_policy none: 422 insufficient_funds and nothing written', async () => {
    // Debiting the wallet (a liability) spends from it; crediting funds it.
    const empty = await api.transfer('cash', 'wallet', '1').expect(422);
    expect(empty.body.error).toMatchObject({ code: 'insufficient_funds', details: { account: 'wallet', available: '0' } });
    await api.transfer('wallet', 'cash', '50').expect(201);
    await api.transfer('cash', 'wallet', '30').expect(201);
    const refused = await api.transfer('cash', 'wallet', '21').expect(422);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_funds', details: { account: 'wallet', available_after: '-1' } });
    await api.transfer('cash', 'wallet', '20').expect(201);
    expect(await api.balance('wallet')).toMatchObject({ posted: '0', available: '0' });
  });

  it('holds pending postings out of available, commits them, and refuses committing a reversed one', async () => {
    await api.account('hold:src', 'liability', 'USD', { overdraft_policy: 'none' });
    await api.account('hold:dst', 'liability', 'USD');
    /** `amount` pending from hold:src to hold:dst. */
    const pendingMove = (amount: string) => api.book([leg('debit', 'hold:src', amount, 'USD', { pending: true }), leg('credit', 'hold:dst', amount, 'USD', { pending: true })]);
    await api
      .post('/transactions', {
        postings: [
          { account: 'cash', amount: '100', currency: 'USD', direction: 'debit' },
          { account: 'hold:src', amount: '100', currency: 'USD', direction: 'credit' },
        ],
      })
      .expect(201);
    const pending = await pendingMove('60').expect(201);
    expect(pending.body.data.status).toBe('pending');
    expect(await api.balance('hold:src')).toMatchObject({ posted: '100', pending: '-60', available: '40' });
    expect(await api.balance('hold:dst')).toMatchObject({ posted: '0', pending: '60', available: '0' });
    const second = await pendingMove('50').expect(422);
    expect(second.body.error.code).toBe('insufficient_funds');
    const committed = await api.post(`/transactions/${pending.body.data.id}/commit`).expect(200);
    expect(committed.body.data.status).toBe('posted');
    expect(await api.balance('hold:src')).toMatchObject({ posted: '40', pending: '0', available: '40' });
    expect(await api.balance('hold:dst')).toMatchObject({ posted: '60', pending: '0', available: '60' });
    await api.post(`/transactions/${pending.body.data.id}/commit`).expect(200);
    expect((await api.events('transaction.committed')).filter((e) => e.resource_id === pending.body.data.id)).toHaveLength(1);

    const held = await pendingMove('10').expect(201);
    const reversal = await api.post(`/transactions/${held.body.data.id}/reverse`).expect(201);
    expect(reversal.body.data.postings).toEqual([]);
    const voided = await api.get(`/transactions/${held.body.data.id}`).expect(200);
    expect(voided.body.data).toMatchObject({ status: 'archived', reversed_by: reversal.body.data.id });
    expect(voided.body.data.postings[0].voided_at).not.toBeNull();
    expect(await api.balance('hold:src')).toMatchObject({ posted: '40', pending: '0', available: '40' });
    const refused = await api.post(`/transactions/${held.body.data.id}/commit`).expect(409);
    expect(refused.body.error.code).toBe('invalid_state');
    await api.post('/transactions/00000000-0000-0000-0000-000000000000/commit').expect(404);
  });

  it('refuses postings to a closed account with 409 account_closed, and closing with a balance', async () => {
    await api.account('closing', 'asset');
    await api.transfer('deposits', 'closing', '3').expect(201);
    const nonzero = await api.post('/accounts/closing/close', { closed_by_label: 'ops' }).expect(409);
    expect(nonzero.body.error).toMatchObject({
      code: 'account_balance_nonzero',
      details: { account: 'closing', posted: '3', pending: '0', currency: 'USD' },
    });
    await api.transfer('closing', 'deposits', '3').expect(201);
    const closed = await api.post('/accounts/closing/close', { closed_by_label: 'ops' }).expect(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', closed_by_label: 'ops', closed_at: expect.any(String) });
    const again = await api.post('/accounts/closing/close', { closed_by_label: 'someone else' }).expect(200);
    expect(again.body.data.closed_by_label).toBe('ops');
    await api.post('/accounts/closing/close', {}).expect(422);
    const refused = await api.transfer('deposits', 'closing', '1').expect(409);
    expect(refused.body.error).toMatchObject({ code: 'account_closed' });
    expect((await api.events('account.closed')).map((e) => e.resource_id)).toContain('closing');
  });

  it('attaches external refs, finds them by lookup and refuses a taken triple', async () => {
    const ref = { rail: 'ach', kind: 'trace', value: 'T-1', metadata: { bank: 'x' } };
    const res = await api.transfer('deposits', 'cash', '7', 'USD', { external_refs: [ref] }).expect(201);
    expect(res.body.data.external_refs).toEqual([
      { object: 'external_ref', id: expect.any(String), rail: 'ach', ref_kind: 'trace', value: 'T-1', metadata: { bank: 'x' }, created_at: expect.any(String) },
    ]);
    const before = await api.balance('cash');
    const dup = await api.transfer('deposits', 'cash', '7', 'USD', { external_refs: [ref] }).expect(409);
    expect(dup.body.error.code).toBe('duplicate_external_ref');
    expect(await api.balance('cash')).toEqual(before);
    const found = await api.get('/transactions/lookup?rail=ach&kind=trace&value=T-1&expand=postings.account').expect(200);
    expect(found.body.data.id).toBe(res.body.data.id);
    expect(found.body.data.postings[0].account).toEqual({ object: 'account', id: 'cash', type: 'asset', currency: 'USD' });
    await api.get('/transactions/lookup?rail=ach&kind=trace&value=nope').expect(404);
    await api.get('/transactions/lookup?rail=ach').expect(422);
    const listed = await api.get('/transactions?ref_rail=ach&ref_value=T-1').expect(200);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([res.body.data.id]);
  });

  it('checks conditions atomically: 409 precondition_failed and nothing written', async () => {
    const cash = await api.get('/accounts/cash').expect(200);
    const available = BigInt((await api.balance('cash')).available);
    const ok = [{ account: 'cash', lock_version: cash.body.data.lock_version, min_available_balance: available.toString() }];
    await api.transfer('deposits', 'cash', '1', 'USD', { conditions: ok }).expect(201);
    for (const condition of [
      { account: 'cash', lock_version: 99 },
      { account: 'cash', min_available_balance: (available + 100n).toString() },
      { account: 'cash', max_available_balance: '0' },
    ]) {
      const res = await api.transfer('deposits', 'cash', '1', 'USD', { conditions: [condition] }).expect(409);
      expect(res.body.error).toMatchObject({ code: 'precondition_failed', param: 'conditions.0' });
    }
    expect(BigInt((await api.balance('cash')).available)).toBe(available + 1n);
  });

  it('dry runs without writing, keying or emitting', async () => {
    const before = await api.balance('cash');
    const count = (await api.events('transaction.created')).length;
    const res = await api.transfer('deposits', 'cash', '9', 'USD', { dry_run: true }, null as never).expect(200);
    expect(res.body.data).toMatchObject({
      object: 'dry_run',
      valid: true,
      summary: {
        totals: { USD: { debit: '9', credit: '9' } },
        balances: expect.arrayContaining([expect.objectContaining({ account: 'cash', posted: (BigInt(before.posted) + 9n).toString() })]),
      },
    });
    // As the reference reads it: the touched account ids, as strings.
    expect([...res.body.data.summary.accounts].sort()).toEqual(['cash', 'deposits']);
    const invalid = await api.transfer('cash', 'wallet', '100000', 'USD', { dry_run: true }, null as never).expect(200);
    expect(invalid.body.data).toMatchObject({ valid: false, error: { code: 'insufficient_funds' }, summary: { accounts: [], balances: [] } });
    expect(await api.balance('cash')).toEqual(before);
    expect((await api.events('transaction.created')).length).toBe(count);
  });

  it('answers a dry run as the reference client sends and reads it: ?dry_run=true, no key, summary.accounts as ids', async () => {
    const before = await api.balance('eur:cash');
    const res = await api
      .post(
        '/transactions?dry_run=true',
        {
          postings: [
            { account: 'eur:cash', amount: '250', currency: 'EUR', direction: 'debit' },
            { account: 'eur:deposits', amount: '250', currency: 'EUR', direction: 'credit' },
          ],
        },
        null,
      )
      .set('Accept', 'application/json')
      .expect(200);
    expect(res.body.data.object).toBe('dry_run');
    expect(res.body.data.valid).toBe(true);
    const { accounts, balances, totals } = res.body.data.summary;
    expect(accounts.every((id: unknown) => typeof id === 'string')).toBe(true);
    expect([...accounts].sort()).toEqual(['eur:cash', 'eur:deposits']);
    expect(totals).toEqual({ EUR: { debit: '250', credit: '250' } });
    expect(balances).toEqual(expect.arrayContaining([expect.objectContaining({ object: 'balance', account: 'eur:cash', posted: (BigInt(before.posted) + 250n).toString() })]));
    expect(await api.balance('eur:cash')).toEqual(before);
  });

  it('expands accounts and resulting balances on create and read', async () => {
    const body = {
      postings: [
        { account: 'eur:cash', amount: '20', currency: 'EUR', direction: 'debit' },
        { account: 'eur:deposits', amount: '20', currency: 'EUR', direction: 'credit' },
        { account: 'cash', amount: '22', currency: 'USD', direction: 'debit' },
        { account: 'deposits', amount: '22', currency: 'USD', direction: 'credit' },
      ],
    };
    const res = await api.post('/transactions?expand=postings.account,balances', body, 'expanded-create').expect(201);
    expect(res.body.data).toMatchObject({ exchange_rate: '1.1', base_currency: 'EUR', quote_currency: 'USD' });
    expect(res.body.data.postings[0].account).toEqual({ object: 'account', id: 'eur:cash', type: 'asset', currency: 'EUR' });
    expect(res.body.data.balances).toEqual(
      expect.arrayContaining([{ object: 'balance', account: 'eur:cash', currency: 'EUR', posted: '20', pending: '0', available: '20' }]),
    );
    const read = await api.get(`/transactions/${res.body.data.id}?expand=balances`).expect(200);
    expect(read.body.data.balances).toHaveLength(4);
    // A replay answers what the write answered: the balances as that write left them, whatever moved since.
    await api.transfer('eur:deposits', 'eur:cash', '5', 'EUR').expect(201);
    const replay = await api.post('/transactions?expand=postings.account,balances', body, 'expanded-create').expect(200);
    expect(replay.body.data).toEqual(res.body.data);
    await api.get(`/transactions/${res.body.data.id}?expand=everything`).expect(422);
  });

  it('changes metadata only; other fields are 409 immutable_field; DELETE is 405', async () => {
    const tx = (await api.transfer('deposits', 'cash', '2', 'USD', { metadata: { a: '1' } }).expect(201)).body.data;
    const merged = await api.patch(`/transactions/${tx.id}`, { metadata: { b: '2' } }).expect(200);
    expect(merged.body.data.metadata).toEqual({ a: '1', b: '2' });
    const replaced = await api.patch(`/transactions/${tx.id}`, { metadata: { c: '3' }, merge: false }).expect(200);
    expect(replaced.body.data.metadata).toEqual({ c: '3' });
    expect((await api.events('transaction.updated')).map((e) => e.resource_id)).toContain(tx.id);
    for (const field of ['postings', 'reverses', 'reversed_by', 'idempotency_key']) {
      const res = await api.patch(`/transactions/${tx.id}`, { [field]: 'x' }, null).expect(409);
      expect(res.body.error).toMatchObject({ code: 'immutable_field', param: field });
    }
    await api.patch('/transactions/00000000-0000-0000-0000-000000000000', { metadata: {} }).expect(404);
    const del = await api.delete(`/transactions/${tx.id}`).expect(405);
    expect(del.body.error).toMatchObject({ code: 'invalid_request', hint: expect.stringContaining(`/v1/transactions/${tx.id}/reverse`) });
    // An authenticated answer like any other: it carries the caller's write budget.
    expect(del.headers).toMatchObject({ 'x-ratelimit-limit': expect.stringMatching(/^\d+$/), 'x-ratelimit-remaining': expect.stringMatching(/^\d+$/) });
    await request(api.t.app.getHttpServer()).delete(`/ledger/v1/transactions/${tx.id}`).expect(401);
  });

  it('stores PATCHed metadata values as strings (R2)', async () => {
    const tx = (await api.transfer('deposits', 'cash', '2', 'USD').expect(201)).body.data;
    const res = await api.patch(`/transactions/${tx.id}`, { metadata: { a: 1, ok: true, none: null, nested: { x: [1] } } }).expect(200);
    expect(res.body.data.metadata).toEqual({ a: '1', ok: 'true', none: 'null', nested: '{"x":[1]}' });
    expect((await api.get(`/transactions/${tx.id}`).expect(200)).body.data.metadata).toEqual(res.body.data.metadata);
    await api.patch(`/transactions/${tx.id}`, { metadata: 'a=1' }).expect(422);
  });

  it('lists newest first with filters and cursors', async () => {
    const a = (await api.transfer('deposits', 'cash', '11', 'USD', { metadata: { batch: 'L' }, value_date: '2025-06-01T00:00:00Z' }).expect(201)).body.data;
    const b = (await api.transfer('deposits', 'cash', '12', 'USD', { metadata: { batch: 'L' }, value_date: '2025-06-02T00:00:00Z' }).expect(201)).body.data;
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
    expect(ids(await api.get('/transactions?metadata[batch]=L').expect(200))).toEqual([b.id, a.id]);
    expect(ids(await api.get('/transactions?value_date_from=2025-06-02T00:00:00Z&value_date_to=2025-06-03T00:00:00Z').expect(200))).toEqual([b.id]);
    expect(ids(await api.get('/transactions?metadata[batch]=L&amount_gte=12').expect(200))).toEqual([b.id]);
    expect(ids(await api.get('/transactions?metadata[batch]=L&amount_lte=11').expect(200))).toEqual([a.id]);
    const page = await api.get('/transactions?metadata[batch]=L&limit=1&include_total=true').expect(200);
    expect(page.body).toMatchObject({ has_more: true, total: 2 });
    expect(ids(await api.get(`/transactions?metadata[batch]=L&limit=1&cursor=${page.body.next_cursor}`).expect(200))).toEqual([a.id]);
    const byAccount = await api.get('/transactions?account=hold:dst&status=archived').expect(200);
    expect(byAccount.body.data).toHaveLength(1);
    expect((await api.get('/transactions?currency=token').expect(200)).body.data).toHaveLength(2);
    expect((await api.get('/transactions?reversed=true').expect(200)).body.data).toHaveLength(1);
    await api.get('/transactions?limit=0').expect(422);
    await api.get('/transactions?status=gone').expect(422);
  });

  it('runs bulk batches: 201 all created, 207 with failures, atomic all or nothing', async () => {
    const item = (key: string, amount: string, to = 'cash') => ({
      idempotency_key: key,
      postings: [
        { account: to, amount, currency: 'USD', direction: 'debit' },
        { account: 'deposits', amount, currency: 'USD', direction: 'credit' },
      ],
    });
    const ok = await api.post('/transactions/bulk', { transactions: [item('b-1', '1'), item('b-2', '2')] }, null).expect(201);
    expect(ok.body.data).toMatchObject({ object: 'bulk_result', atomic: false, partial_failure: false });
    expect(ok.body.data.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created']);
    // Each item's event carries its result; its posting ids come in item order.
    const created = await api.get('/events?type=transaction.created&limit=10').expect(200);
    const written = ok.body.data.results.map((r: { transaction: { id: string } }) => r.transaction);
    for (const t of written) expect(created.body.data.find((e: { resource_id: string }) => e.resource_id === t.id)?.data).toEqual(t);
    const postingIds = written.flatMap((t: { postings: { id: number }[] }) => t.postings.map((p) => p.id));
    expect(postingIds).toEqual([...postingIds].sort((a, b) => a - b));
    const mixed = await api.post('/transactions/bulk', { transactions: [item('b-1', '1'), item('b-3', '3', 'ghost')] }, null).expect(207);
    expect(mixed.body.data.results).toEqual([
      expect.objectContaining({ idempotency_key: 'b-1', status: 'replayed', transaction: expect.objectContaining({ id: ok.body.data.results[0].transaction.id }) }),
      expect.objectContaining({ idempotency_key: 'b-3', status: 'error', error: expect.objectContaining({ code: 'unknown_account' }) }),
    ]);
    const before = await api.balance('cash');
    const atomic = await api.post('/transactions/bulk', { atomic: true, transactions: [item('b-4', '4'), item('b-5', '5', 'ghost')] }, null).expect(207);
    expect(atomic.body.data).toMatchObject({ atomic: true, partial_failure: true });
    expect(atomic.body.data.results.map((r: { error: { code: string } }) => r.error.code)).toEqual(['invalid_request', 'unknown_account']);
    expect(await api.balance('cash')).toEqual(before);
    await api.post('/transactions/bulk', { atomic: true, transactions: [item('b-4', '4'), item('b-6', '6')] }, null).expect(201);
    expect(BigInt((await api.balance('cash')).posted)).toBe(BigInt(before.posted) + 10n);
    const empty = await api.post('/transactions/bulk', { transactions: [] }, null).expect(422);
    expect(empty.body.error.param).toBe('transactions');
  });

  it('refuses an array or null where a nested object belongs (422 naming the field; pnpm fuzz seed 90210 got a 500)', async () => {
    const postings = [
      { account: 'cash', amount: '1', currency: 'USD', direction: 'debit' },
      { account: 'deposits', amount: '1', currency: 'USD', direction: 'credit' },
    ];
    const cases: [string, Record<string, unknown>, string][] = [
      ['/transactions/bulk', { atomic: false, transactions: [[]] }, 'transactions'],
      ['/transactions/bulk', { atomic: true, transactions: [null] }, 'transactions'],
      ['/transactions/bulk', { transactions: [{ idempotency_key: 'nested-1', postings: [[], []] }] }, 'transactions.0.postings'],
      ['/transactions', { postings: [postings[0], [postings[1]]] }, 'postings'],
      ['/transactions', { postings, conditions: [[]] }, 'conditions'],
      ['/transactions', { postings, external_refs: [[{ rail: 'ach', kind: 'trace', value: '1' }]] }, 'external_refs'],
    ];
    for (const [path, body, param] of cases) {
      const res = await api.post(path, body, path === '/transactions' ? undefined : null);
      expect([path, JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.param]).toEqual([path, JSON.stringify(body), 422, 'invalid_request', param]);
    }
  });
});
