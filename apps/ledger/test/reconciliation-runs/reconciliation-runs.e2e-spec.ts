import { randomBytes, randomUUID } from 'node:crypto';
import { pollUntil } from '@bursar/testing';
import { BooksApi, Json } from '../books-api';
import { ledgerAppStack } from '../ledger-test-app';

/** Runs over more than this many open rows are queued (the setting's default is 500). */
const SYNC_LIMIT = 6;
const DAY = '2026-03-10';
const at = (time: string) => `${DAY}T${time}Z`;

describe('Reconciliation runs', () => {
  const t = ledgerAppStack('reconciliation_runs', {
    LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
    // The file's own queue, so parallel suites never take each other's runs.
    WEBHOOK_QUEUE_PREFIX: `test-recon-${randomBytes(4).toString('hex')}`,
    LEDGER_RECONCILIATION_SYNC_ROW_LIMIT: String(SYNC_LIMIT),
    LEDGER_RECONCILIATION_SWEEP_INTERVAL_MS: '200',
    LEDGER_RECONCILIATION_STALE_AFTER_MS: '1500',
  });

  /** A fresh ledger with a bank account (asset) and the accounts money comes from and goes to. */
  async function books(): Promise<BooksApi> {
    const api = await BooksApi.start(t);
    await api.account('bank', 'asset');
    await api.account('sales', 'revenue');
    await api.account('rent', 'expense');
    return api;
  }

  /** Money into the bank account (its posting reads +amount); returns the bank posting's id. */
  /** The id of the bank account's posting in a transfer's answer. */
  function bankPosting(res: { body: { data: { postings: { id: number; account: string }[] } } }): number {
    const posting = res.body.data.postings.find((p) => p.account === 'bank');
    if (!posting) throw new Error('the transfer has no bank posting');
    return posting.id;
  }

  async function deposit(api: BooksApi, amount: string, valueDate: string, extra: Json = {}): Promise<number> {
    return bankPosting(await api.transfer('sales', 'bank', amount, 'USD', { value_date: valueDate, ...extra }).expect(201));
  }

  async function payment(api: BooksApi, amount: string, valueDate: string): Promise<number> {
    return bankPosting(await api.transfer('bank', 'rent', amount, 'USD', { value_date: valueDate }).expect(201));
  }

  const item = (externalId: string, amount: string, when: string, extra: Json = {}) => ({ external_id: externalId, amount, currency: 'USD', at: when, ...extra });
  const inline = (api: BooksApi, body: Json) => api.post('/reconciliation_runs', { source: 'Bank A', ...body });

  async function postingState(id: number) {
    const [row] = await t.db.query(`SELECT reconciled_at, reconciliation_reference FROM postings WHERE id = $1`, [id]);
    return row as { reconciled_at: Date | null; reconciliation_reference: string | null };
  }

  it('reconciles an inline run at once: matched and unmatched arrays, marks, events, reads', async () => {
    const api = await books();
    const posting = await deposit(api, '1000', at('09:00:00'));
    await deposit(api, '2500', at('10:00:00'));
    const res = await inline(api, {
      external_reference: 'stmt-1',
      note: 'March',
      items: [item('e1', '1000', at('11:00:00')), item('e2', '777', at('09:00:00'))],
    }).expect(201);
    const run = res.body.data;
    expect(run).toMatchObject({
      object: 'reconciliation_run',
      id: expect.any(String),
      source: 'bank a',
      source_id: expect.any(String),
      status: 'completed',
      external_reference: 'stmt-1',
      note: 'March',
      strategy: 'exact',
      window_seconds: 86400,
      auto_resolve_below_minor_units: '0',
      matched_count: 1,
      unmatched_count: 1,
      pass_counts: { external_ref: 0, exact: 1, sum_in_window: 0 },
      unmatched_internal: [],
      error_message: null,
      completed_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(run.matched).toEqual([
      expect.objectContaining({
        external_id: 'e1',
        posting_id: posting,
        account: 'bank',
        amount: '1000',
        currency: 'USD',
        posting_value_date: '2026-03-10T09:00:00.000Z',
        external_at: '2026-03-10T11:00:00.000Z',
        strategy: 'exact',
        residual: '0',
        match_id: expect.any(String),
      }),
    ]);
    expect(run.unmatched_external).toEqual([expect.objectContaining({ external_id: 'e2', amount: '777', currency: 'USD' })]);

    expect((await postingState(posting)).reconciled_at).not.toBeNull();
    expect((await postingState(posting)).reconciliation_reference).toBe('stmt-1');
    const rows = await t.db.query(`SELECT external_id, status, reconciliation_run_id, reconciliation_match_id FROM external_transactions
      WHERE source_id = $1 ORDER BY external_id`, [run.source_id]);
    expect(rows).toEqual([
      { external_id: 'e1', status: 'matched', reconciliation_run_id: run.id, reconciliation_match_id: run.matched[0].match_id },
      { external_id: 'e2', status: 'open', reconciliation_run_id: null, reconciliation_match_id: null },
    ]);

    const [created] = await api.events('reconciliation.match_created');
    expect(created).toMatchObject({
      resource_id: run.matched[0].match_id,
      data: { match_id: run.matched[0].match_id, external_transaction_id: run.matched[0].external_transaction_id, posting_ids: [posting] },
    });
    const completed = await api.events('reconciliation.run_completed');
    expect(completed).toEqual([
      expect.objectContaining({
        resource_id: run.id,
        data: expect.objectContaining({ status: 'completed', matched_count: 1, unmatched_count: 1, pass_counts: run.pass_counts }),
      }),
    ]);

    const got = (await api.get(`/reconciliation_runs/${run.id}`).expect(200)).body.data;
    expect(got).toEqual(run);
    const list = (await api.get('/reconciliation_runs?limit=1').expect(200)).body;
    expect(list).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: run.id, matched_count: 1 });
    expect(list.data[0]).not.toHaveProperty('matched');
  });

  it('never marks a row or a posting twice on a rerun, and replays an idempotent retry', async () => {
    const api = await books();
    const posting = await deposit(api, '40', at('08:00:00'));
    const body = { items: [item('r1', '40', at('08:30:00')), item('r2', '41', at('08:30:00'))] };
    const first = (await inline(api, body).expect(201)).body.data;
    const before = await postingState(posting);
    const again = (await inline(api, body).expect(201)).body.data;
    expect(again).toMatchObject({ status: 'completed', matched_count: 0, unmatched_count: 1, matched: [] });
    expect(await postingState(posting)).toEqual(before);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM reconciliation_matches WHERE ledger_id = $1`, [api.client.ledgerId]);
    expect(n).toBe(1);
    const [row] = await t.db.query(`SELECT reconciliation_run_id FROM external_transactions WHERE external_id = 'r1' AND ledger_id = $1`, [api.client.ledgerId]);
    expect(row.reconciliation_run_id).toBe(first.id);

    const key = randomUUID();
    const once = await api.post('/reconciliation_runs', { source: 'bank a', items: [item('r3', '5', at('08:00:00'))] }, key).expect(201);
    const replay = await api.post('/reconciliation_runs', { source: 'bank a', items: [item('r3', '5', at('08:00:00'))] }, key).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(once.body.data.id);
  });

  it('drops only the match whose posting was taken while its batch waited, and writes the rest', async () => {
    const api = await books();
    const taken = await deposit(api, '310', at('10:00:00'));
    const kept = await deposit(api, '320', at('10:00:00'));
    // A hand reconciliation holds the posting while the run's batch reaches it, then commits first.
    const holder = t.db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT id FROM postings WHERE id = $1 FOR UPDATE`, [taken]);
    let res;
    try {
      const pending = inline(api, { source: 'contended', items: [item('t1', '310', at('10:05:00')), item('t2', '320', at('10:05:00'))] }).then((r) => r);
      await pollUntil(
        () => t.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE postings p%'`),
        (rows: { n: number }[]) => rows[0].n > 0,
      );
      await holder.query(`UPDATE postings SET reconciled_at = clock_timestamp() WHERE id = $1`, [taken]);
      await holder.commitTransaction();
      res = await pending;
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
    const run = res.body.data;
    expect(res.status).toBe(201);
    expect(run).toMatchObject({ status: 'completed', matched_count: 1, unmatched_count: 1 });
    expect(run.matched).toEqual([expect.objectContaining({ external_id: 't2', posting_id: kept })]);
    expect(run.unmatched_external).toEqual([expect.objectContaining({ external_id: 't1' })]);
    const matches = await t.db.query(`SELECT posting_ids FROM reconciliation_matches WHERE reconciliation_run_id = $1`, [run.id]);
    expect(matches).toEqual([{ posting_ids: [String(kept)] }]);
    const rows = await t.db.query(`SELECT external_id, status FROM external_transactions WHERE source_id = $1 ORDER BY external_id`, [run.source_id]);
    expect(rows).toEqual([{ external_id: 't1', status: 'open' }, { external_id: 't2', status: 'matched' }]);
    expect((await api.events('reconciliation.match_created')).map((e) => (e.data as Json).posting_ids)).toEqual([[kept]]);
  });

  it('skips only the match a live index refuses, writing the rest of its batch one by one', async () => {
    const api = await books();
    const hidden = await deposit(api, '410', at('10:00:00'));
    const kept = await deposit(api, '420', at('10:00:00'));
    const holder = (await inline(api, { source: 'holder', items: [item('h1', '999', at('10:00:00'))] }).expect(201)).body.data;
    const [holderRow] = await t.db.query(`SELECT id FROM external_transactions WHERE source_id = $1`, [holder.source_id]);
    // Another writer's live match that has not set reconciled_at yet: only the unique index sees it.
    const [m] = await t.db.query(
      `INSERT INTO reconciliation_matches (ledger_id, external_transaction_id, strategy, posting_ids, amount, currency)
       VALUES ($1, $2, 'exact', ARRAY[$3::bigint], 410, 'USD') RETURNING id`,
      [api.client.ledgerId, holderRow.id, hidden],
    );
    await t.db.query(`INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id) VALUES ($1, $2, $3)`, [m.id, hidden, api.client.ledgerId]);

    const run = (await inline(api, { items: [item('r1', '410', at('10:05:00')), item('r2', '420', at('10:05:00'))] }).expect(201)).body.data;
    expect(run).toMatchObject({ status: 'completed', matched_count: 1, unmatched_count: 1 });
    expect(run.matched).toEqual([expect.objectContaining({ external_id: 'r2', posting_id: kept })]);
    expect(run.unmatched_external).toEqual([expect.objectContaining({ external_id: 'r1' })]);
    expect((await postingState(hidden)).reconciled_at).toBeNull();
    const created = await api.events('reconciliation.match_created');
    expect(created.map((e) => (e.data as Json).posting_ids)).toEqual([[kept]]);
  });

  it('pairs by external reference first, whatever the date, for the exact amount', async () => {
    const api = await books();
    const far = await deposit(api, '500', '2026-02-01T00:00:00Z', { external_refs: [{ rail: 'ach', kind: 'trace', value: 'T-1' }] });
    const near = await deposit(api, '500', at('12:00:00'));
    const ref = { reference_rail: 'ach', reference_kind: 'trace', reference_value: 'T-1' };
    const run = (await inline(api, { items: [item('x1', '500', at('12:00:00'), ref), item('x2', '500', at('12:00:00'))] }).expect(201)).body.data;
    expect(run.pass_counts).toEqual({ external_ref: 1, exact: 1, sum_in_window: 0 });
    const byRow = Object.fromEntries(run.matched.map((m: Json) => [m.external_id, m]));
    expect(byRow.x1).toMatchObject({ posting_id: far, strategy: 'external_ref' });
    expect(byRow.x2).toMatchObject({ posting_id: near, strategy: 'exact' });

    // A triple whose transaction carries another amount is no match.
    await deposit(api, '600', at('12:00:00'), { external_refs: [{ rail: 'ach', kind: 'trace', value: 'T-2' }] });
    const wrong = (await inline(api, { items: [item('x3', '601', at('12:00:00'), { ...ref, reference_value: 'T-2' })] }).expect(201)).body.data;
    expect(wrong).toMatchObject({ matched_count: 0, unmatched_count: 1 });
  });

  it('matches within window_seconds inclusive, picks the nearest date, respects sign and account', async () => {
    const api = await books();
    const edge = await deposit(api, '100', at('00:00:00'));
    await deposit(api, '200', at('00:00:00'));
    const early = await deposit(api, '300', at('05:30:00'));
    const late = await deposit(api, '300', at('06:10:00'));
    const out = await payment(api, '50', at('00:00:00'));
    const run = (
      await inline(api, {
        window_seconds: 3600,
        items: [
          item('w1', '100', at('01:00:00')),
          item('w2', '200', at('01:00:01')),
          item('w3', '300', at('06:00:00')),
          item('w4', '-50', at('00:30:00')),
          item('w5', '50', at('00:30:00'), { account_id: 'bank' }),
          item('w6', '300', at('06:00:00'), { account_id: 'sales' }),
        ],
      }).expect(201)
    ).body.data;
    expect(run.status).toBe('completed');
    const matched = Object.fromEntries(run.matched.map((m: Json) => [m.external_id, m.posting_id]));
    expect(matched).toEqual({ w1: edge, w3: late, w4: out });
    expect(run.unmatched_external.map((r: Json) => r.external_id).sort()).toEqual(['w2', 'w5', 'w6']);
    expect((await postingState(early)).reconciled_at).toBeNull();
  });

  it('sums up to five postings in the window only under sum_in_window', async () => {
    const api = await books();
    const parts = [await deposit(api, '300', at('10:00:00')), await deposit(api, '150', at('11:00:00')), await deposit(api, '50', at('12:00:00'))];
    const exact = (await inline(api, { items: [item('s1', '500', at('11:00:00'))] }).expect(201)).body.data;
    expect(exact).toMatchObject({ matched_count: 0, unmatched_count: 1 });
    const sum = (await inline(api, { strategy: 'sum_in_window', items: [item('s1', '500', at('11:00:00'))] }).expect(201)).body.data;
    expect(sum).toMatchObject({ strategy: 'sum_in_window', matched_count: 1, unmatched_count: 0, pass_counts: { sum_in_window: 1 } });
    expect(sum.matched.map((m: Json) => m.posting_id).sort()).toEqual([...parts].sort());
    expect(new Set(sum.matched.map((m: Json) => m.match_id)).size).toBe(1);
    const [match] = await t.db.query(`SELECT strategy, posting_ids::text[] AS posting_ids, residual::text FROM reconciliation_matches WHERE id = $1`, [
      sum.matched[0].match_id,
    ]);
    expect(match).toMatchObject({ strategy: 'sum_in_window', residual: '0' });
    expect(match.posting_ids.map(Number).sort()).toEqual([...parts].sort());
  });

  it('auto-resolves a residual within the tolerance, with its event, and not one past it', async () => {
    const api = await books();
    const close = await deposit(api, '1000', at('10:00:00'));
    await deposit(api, '2000', at('10:00:00'));
    const run = (
      await inline(api, {
        auto_resolve_below_minor_units: '5',
        items: [item('a1', '1005', at('10:00:00')), item('a2', '2006', at('10:00:00'))],
      }).expect(201)
    ).body.data;
    expect(run).toMatchObject({ matched_count: 1, unmatched_count: 1, auto_resolve_below_minor_units: '5' });
    expect(run.matched[0]).toMatchObject({ external_id: 'a1', posting_id: close, amount: '1000', residual: '5', strategy: 'exact' });
    const [match] = await t.db.query(`SELECT auto_resolved, residual::text FROM reconciliation_matches WHERE id = $1`, [run.matched[0].match_id]);
    expect(match).toEqual({ auto_resolved: true, residual: '5' });
    expect(run.unmatched_external[0].external_id).toBe('a2');
    const [event] = await api.events('reconciliation.break_auto_resolved');
    expect(event).toMatchObject({ resource_id: run.matched[0].match_id, data: { residual: '5', tolerance: '5', auto_resolved: true, posting_ids: [close] } });
  });

  it('reports unmatched_internal only for runs given from/to, in the rows\' accounts', async () => {
    const api = await books();
    const left = await deposit(api, '70', at('09:00:00'));
    await deposit(api, '70', '2026-04-01T00:00:00Z');
    const items = [item('u1', '999', at('09:00:00'), { account_id: 'bank' })];
    const plain = (await inline(api, { items }).expect(201)).body.data;
    expect(plain.unmatched_internal).toEqual([]);
    const ranged = (await inline(api, { items, from: `${DAY}T00:00:00Z`, to: '2026-03-11T00:00:00Z' }).expect(201)).body.data;
    expect(ranged).toMatchObject({ from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z', unmatched_count: 1 });
    expect(ranged.unmatched_internal).toEqual([
      { posting_id: left, transaction_id: expect.any(String), account: 'bank', amount: '70', currency: 'USD', value_date: '2026-03-10T09:00:00.000Z' },
    ]);
  });

  it('runs a source over its open rows with its default settings; unknown source 404', async () => {
    const api = await books();
    const source = (
      await api.post('/sources', { name: 'Checking', default_account_id: 'bank', default_window_seconds: 7200, default_strategy: 'sum_in_window' }).expect(201)
    ).body.data;
    // Rows land first (nothing to match yet), the books catch up, then the source run reconciles them.
    await inline(api, { source: 'checking', items: [item('c1', '120', at('10:00:00')), item('c2', '80', at('10:00:00'))] }).expect(201);
    const a = await deposit(api, '120', at('11:30:00'));
    const b1 = await deposit(api, '30', at('09:00:00'));
    const b2 = await deposit(api, '50', at('09:30:00'));
    await api.transfer('sales', 'rent', '120', 'USD', { value_date: at('10:00:00') }).expect(201);
    const run = (await api.post(`/sources/${source.id}/reconciliation_runs`, { external_reference: 'stmt-9' }).expect(201)).body.data;
    expect(run).toMatchObject({ source: 'checking', source_id: source.id, status: 'completed', strategy: 'sum_in_window', window_seconds: 7200 });
    expect(run).toMatchObject({ matched_count: 2, unmatched_count: 0, pass_counts: { external_ref: 0, exact: 1, sum_in_window: 1 } });
    expect(run.matched.map((m: Json) => m.posting_id).sort()).toEqual([a, b1, b2].sort());

    const ranged = (await api.post(`/sources/${source.id}/reconciliation_runs`, { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }).expect(201)).body.data;
    expect(ranged).toMatchObject({ matched_count: 0, unmatched_count: 0, unmatched_internal: [] });
    await api.post(`/sources/${randomUUID()}/reconciliation_runs`, {}).expect(404);
    await api.post('/sources/nope/reconciliation_runs', {}).expect(404);
    await api.get(`/reconciliation_runs/${randomUUID()}`).expect(404);
    await api.get('/reconciliation_runs/nope').expect(404);
  });

  it('refuses bad input with 422 and writes nothing', async () => {
    const api = await books();
    const bad = async (body: Json, param: string) => {
      const res = await api.post('/reconciliation_runs', body).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_request' });
      expect(JSON.stringify(res.body.error)).toContain(param);
    };
    await bad({ items: [item('v1', '1', at('00:00:00'))] }, 'source');
    await bad({ source: 'v', items: [] }, 'items');
    await bad({ source: 'v', items: [item('v1', '1', at('00:00:00')), item('v2', '1.5', at('00:00:00'))] }, 'items[1].amount');
    await bad({ source: 'v', items: [item('v1', '1', 'yesterday')] }, 'items[0].at');
    await bad({ source: 'v', items: [item('v1', '1', at('00:00:00'))], strategy: 'fuzzy' }, 'strategy');
    await bad({ source: 'v', items: [item('v1', '1', at('00:00:00'))], window_seconds: -1 }, 'window_seconds');
    await bad({ source: 'v', items: [item('v1', '1', at('00:00:00'))], auto_resolve_below_minor_units: '-1' }, 'auto_resolve_below_minor_units');
    await bad({ source: 'v', items: [item('v1', '1', at('00:00:00'))], from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to');
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM external_transactions WHERE ledger_id = $1`, [api.client.ledgerId]);
    expect(n).toBe(0);
    await api.get('/reconciliation_runs?limit=201').expect(422);
    await api.get('/reconciliation_runs?limit=0').expect(422);
    expect((await api.get('/reconciliation_runs?cursor=abc').expect(200)).body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('lets one of two parallel runs on a source start; the other is 409 run_in_progress', async () => {
    const api = await books();
    const source = (await api.post('/sources', { name: 'race' }).expect(201)).body.data;
    await inline(api, { source: 'race', items: [item('p1', '10', at('10:00:00'))] }).expect(201);
    const posting = await deposit(api, '10', at('10:00:00'));
    // Holding the posting's row lock keeps the winning run `running` until the loser has been answered.
    const holder = t.db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT id FROM postings WHERE id = $1 FOR UPDATE`, [posting]);
    try {
      const start = () => api.post(`/sources/${source.id}/reconciliation_runs`, {}).then((res) => res);
      const pending = [start(), start()];
      const loser = await Promise.race(pending);
      expect(loser.status).toBe(409);
      expect(loser.body.error).toMatchObject({ code: 'run_in_progress', details: { source_id: source.id } });
      const running = (await api.get('/reconciliation_runs').expect(200)).body.data[0];
      expect(running.status).toBe('running');
      await holder.commitTransaction();
      const statuses = (await Promise.all(pending)).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
    const runs = (await api.get('/reconciliation_runs').expect(200)).body.data;
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ status: 'completed', matched_count: 1 });
    // Once finished, the source may run again.
    await api.post(`/sources/${source.id}/reconciliation_runs`, {}).expect(201);
  });

  it('queues a run over more open rows than the limit and completes it in the background', async () => {
    const api = await books();
    const source = (await api.post('/sources', { name: 'big' }).expect(201)).body.data;
    const items = Array.from({ length: SYNC_LIMIT + 2 }, (_, i) => item(`q${i}`, String(10 + i), at('10:00:00')));
    await inline(api, { source: 'big', items, window_seconds: 0 }).then((res) => expect(res.body.data.status).toMatch(/queued|running|completed/));
    await pollUntil(() => api.get('/reconciliation_runs?limit=1'), (res) => res.body.data[0].status === 'completed');
    for (let i = 0; i < SYNC_LIMIT + 1; i++) await deposit(api, String(10 + i), at('10:30:00'));
    const queued = (await api.post(`/sources/${source.id}/reconciliation_runs`, {}).expect(201)).body.data;
    expect(queued).toMatchObject({ status: 'queued', matched: [], unmatched_external: [], unmatched_internal: [], matched_count: 0 });
    const done = await pollUntil(
      () => api.get(`/reconciliation_runs/${queued.id}`),
      (res) => res.body.data.status === 'completed',
    );
    expect(done.body.data).toMatchObject({ matched_count: SYNC_LIMIT + 1, unmatched_count: 1, attempts: 1, started_at: expect.any(String) });
    expect(done.body.data.unmatched_external).toEqual([expect.objectContaining({ external_id: `q${SYNC_LIMIT + 1}` })]);
    const events = await api.events('reconciliation.run_completed');
    expect(events.find((e) => e.resource_id === queued.id)).toMatchObject({ data: { status: 'completed', matched_count: SYNC_LIMIT + 1 } });
  });

  it('picks up a run left running by a dead process (stale heartbeat) and completes it', async () => {
    const api = await books();
    const source = (await api.post('/sources', { name: 'orphan' }).expect(201)).body.data;
    await inline(api, { source: 'orphan', items: [item('o1', '15', at('10:00:00'))] }).expect(201);
    await deposit(api, '15', at('10:00:00'));
    const [{ id }] = await t.db.query(
      `INSERT INTO reconciliation_runs (ledger_id, source_id, status, strategy, window_seconds, attempts, started_at, heartbeat_at)
       VALUES ($1, $2, 'running', 'exact', 86400, 1, now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [api.client.ledgerId, source.id],
    );
    // Its source counts as busy meanwhile.
    await api.post(`/sources/${source.id}/reconciliation_runs`, {}).expect(409);
    const done = await pollUntil(() => api.get(`/reconciliation_runs/${id}`), (res) => res.body.data.status === 'completed');
    expect(done.body.data).toMatchObject({ matched_count: 1, attempts: 2, pass_counts: { exact: 1 } });
    // A resumed run reads its matches back from the database: the same entries.
    expect(done.body.data.matched).toEqual([
      expect.objectContaining({ external_id: 'o1', account: 'bank', amount: '15', currency: 'USD', strategy: 'exact', residual: '0', match_id: expect.any(String) }),
    ]);
  });

  it('fails a run that keeps dying instead of retrying it forever', async () => {
    const api = await books();
    const source = (await api.post('/sources', { name: 'cursed' }).expect(201)).body.data;
    const [{ id }] = await t.db.query(
      `INSERT INTO reconciliation_runs (ledger_id, source_id, status, strategy, window_seconds, attempts, started_at, heartbeat_at)
       VALUES ($1, $2, 'running', 'exact', 86400, 3, now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [api.client.ledgerId, source.id],
    );
    const done = await pollUntil(() => api.get(`/reconciliation_runs/${id}`), (res) => res.body.data.status === 'failed');
    expect(done.body.data.error_message).toMatch(/gave up/);
    const events = await api.events('reconciliation.run_completed');
    expect(events.find((e) => e.resource_id === id)).toMatchObject({ data: { status: 'failed' } });
  });
});
