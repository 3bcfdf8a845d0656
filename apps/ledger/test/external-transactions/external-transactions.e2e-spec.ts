import { BooksApi, booksStack, Json } from '../books-api';

type Posting = { id: number; account: string; direction: string; amount: string };

/** The leg of a transaction response on `direction`. */
function leg(res: { body: { data: { postings: Posting[] } } }, direction: 'debit' | 'credit'): Posting {
  const posting = res.body.data.postings.find((p) => p.direction === direction);
  if (!posting) throw new Error(`no ${direction} leg in ${JSON.stringify(res.body)}`);
  return posting;
}

describe('External transactions (reference s.12)', () => {
  const api = booksStack('external-transactions', {
    accounts: [
      'cash',
      'revenue',
      ['cash:eur', 'asset', 'EUR'],
      ['revenue:eur', 'revenue', 'EUR'],
      'hold',
    ],
  });
  let other: BooksApi;
  let sourceId: string;
  let seq = 0;

  const item = (extra: Json = {}): Json => ({
    external_id: `row-${++seq}`,
    amount: '1000',
    currency: 'USD',
    occurred_at: '2026-03-01T10:00:00Z',
    ...extra,
  });

  function ingest(items: unknown[], source = sourceId, as = api) {
    return as.post(`/sources/${source}/external_transactions`, { items });
  }

  /** One row, created, returned as the API shows it. */
  async function row(extra: Json = {}): Promise<Json> {
    const res = await ingest([item(extra)]).expect(201);
    expect(res.body.data.results[0].status).toBe('created');
    return res.body.data.results[0].external_transaction;
  }

  /** A transfer from revenue to cash: the cash leg is a debit (signed +amount). */
  async function sale(amount: string, currency = 'USD', extra: Json = {}): Promise<{ cash: Posting; revenue: Posting }> {
    const res = await api.transfer(currency === 'USD' ? 'revenue' : 'revenue:eur', currency === 'USD' ? 'cash' : 'cash:eur', amount, currency, extra);
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return { cash: leg(res, 'debit'), revenue: leg(res, 'credit') };
  }

  beforeAll(async () => {
    other = await BooksApi.start(api.t);
    sourceId = (await api.post('/sources', { name: 'bank' }).expect(201)).body.data.id;
  });

  describe('ingest', () => {
    it('creates rows, replays known ones unchanged, and reports bad items one by one', async () => {
      const first = await ingest([
        item({ external_id: 'a-1', amount: '-2500', account_id: 'acct-9', raw: { memo: 'fee' } }),
        item({ external_id: 'a-2', amount: 700, occurred_at: undefined, at: '2026-03-02T00:00:00Z' }),
        item({ external_id: 'a-3', reference_rail: 'ach', reference_kind: 'trace', reference_value: 'T1' }),
      ]).expect(201);
      expect(first.body.data).toEqual(
        expect.objectContaining({ object: 'ingest_result', source_id: sourceId, created_count: 3, replayed_count: 0, error_count: 0 }),
      );
      const a1 = first.body.data.results[0];
      expect(a1).toEqual({
        external_id: 'a-1',
        status: 'created',
        external_transaction: {
          object: 'external_transaction',
          id: expect.any(String),
          source_id: sourceId,
          external_id: 'a-1',
          amount: '-2500',
          currency: 'USD',
          status: 'open',
          account_id: 'acct-9',
          occurred_at: '2026-03-01T10:00:00.000Z',
          matched_at: null,
          ignored_reason: null,
          reconciliation_run_id: null,
          reconciliation_match_id: null,
          reference_rail: null,
          reference_kind: null,
          reference_value: null,
          raw: { memo: 'fee' },
          created_at: expect.any(String),
        },
      });
      expect(first.body.data.results[1].external_transaction).toEqual(expect.objectContaining({ amount: '700', occurred_at: '2026-03-02T00:00:00.000Z' }));
      expect(first.body.data.results[2].external_transaction).toEqual(
        expect.objectContaining({ reference_rail: 'ach', reference_kind: 'trace', reference_value: 'T1' }),
      );

      // A replay, even with other values, never changes the stored row.
      const again = await ingest([
        item({ external_id: 'a-1', amount: '999' }),
        item({ external_id: 'a-4' }),
        item({ external_id: 'a-4' }),
        item({ external_id: 'bad-1', amount: '0' }),
        item({ external_id: 'bad-2', amount: '12.5' }),
        item({ external_id: 'bad-3', currency: undefined }),
        item({ external_id: 'bad-4', reference_rail: 'ach' }),
        item({ external_id: 'bad-5', occurred_at: 'yesterday' }),
        item({ external_id: '' }),
        'not an object',
      ]).expect(201);
      const d = again.body.data;
      expect([d.created_count, d.replayed_count, d.error_count]).toEqual([1, 2, 7]);
      expect(d.results.map((r: Json) => r.status)).toEqual([
        'replayed', 'created', 'replayed', 'error', 'error', 'error', 'error', 'error', 'error', 'error',
      ]);
      expect(d.results[0].external_transaction).toEqual(a1.external_transaction);
      expect(d.results[1].external_transaction.id).toBe(d.results[2].external_transaction.id);
      expect(d.results.slice(3).map((r: Json) => (r.error as Json).param)).toEqual([
        'items[3].amount', 'items[4].amount', 'items[5].currency', 'items[6].reference_kind', 'items[7].occurred_at', 'items[8].external_id', 'items[9]',
      ]);
      expect(d.results[3]).toEqual({
        external_id: 'bad-1',
        status: 'error',
        error: { code: 'invalid_request', message: expect.stringContaining('non-zero'), param: 'items[3].amount' },
      });
      expect((await api.get(`/external_transactions/${a1.external_transaction.id}`).expect(200)).body.data.amount).toBe('-2500');
    });

    it('refuses empty, oversized and malformed bodies with 422, unknown and foreign sources with 404', async () => {
      for (const body of [{ items: [] }, { items: Array.from({ length: 1001 }, () => item()) }, { items: 'x' }, {}]) {
        const res = await api.post(`/sources/${sourceId}/external_transactions`, body).expect(422);
        expect(res.body.error.code).toBe('invalid_request');
      }
      await ingest([item()], '00000000-0000-4000-8000-000000000000').expect(404);
      await ingest([item()], sourceId, other).expect(404);
    });

    it('lands 1000 items in one call, and replays them all', async () => {
      const items = Array.from({ length: 1000 }, (_, i) => item({ external_id: `bulk-${i}`, amount: String(i + 1) }));
      const started = Date.now();
      const res = await ingest(items).expect(201);
      const firstMs = Date.now() - started;
      expect(res.body.data.created_count).toBe(1000);
      const replay = await ingest(items).expect(201);
      expect([replay.body.data.created_count, replay.body.data.replayed_count]).toEqual([0, 1000]);
      expect(firstMs).toBeLessThan(5000);
    });
  });

  describe('list and get', () => {
    let fresh: BooksApi;
    let sources: string[];

    beforeAll(async () => {
      fresh = await BooksApi.start(api.t);
      sources = [
        (await fresh.post('/sources', { name: 'one' }).expect(201)).body.data.id,
        (await fresh.post('/sources', { name: 'two' }).expect(201)).body.data.id,
      ];
      await ingest([item({ external_id: 'l1', occurred_at: '2026-01-01T00:00:00Z' }), item({ external_id: 'l2', currency: 'EUR', occurred_at: '2026-01-05T00:00:00Z' })], sources[0], fresh).expect(201);
      await ingest([item({ external_id: 'l3', occurred_at: '2026-01-10T00:00:00Z' })], sources[1], fresh).expect(201);
      await ingest([item({ external_id: 'l4', occurred_at: '2026-01-20T00:00:00Z' })], sources[1], fresh).expect(201);
    });

    const ids = async (query: string) => ((await fresh.get(`/external_transactions${query}`).expect(200)).body.data as Json[]).map((r) => r.external_id);

    it('lists newest first and filters by source, currency, status and occurred_at range', async () => {
      expect(await ids('')).toEqual(['l4', 'l3', 'l2', 'l1']);
      expect(await ids(`?source_id=${sources[1]}`)).toEqual(['l4', 'l3']);
      expect(await ids('?currency=EUR')).toEqual(['l2']);
      expect(await ids('?currency=eur')).toEqual(['l2']);
      expect(await ids('?from=2026-01-05T00:00:00Z&to=2026-01-20T00:00:00Z')).toEqual(['l3', 'l2']);
      expect(await ids('?status=matched')).toEqual([]);
      expect(await ids('?status=open&source_id=not-a-uuid')).toEqual([]);
      const l3 = (await fresh.get(`/external_transactions?source_id=${sources[1]}&limit=1&include_total=true`).expect(200)).body;
      expect(l3).toEqual(expect.objectContaining({ object: 'list', has_more: true, total: 2 }));
      const next = (await fresh.get(`/external_transactions?source_id=${sources[1]}&limit=1&cursor=${encodeURIComponent(l3.next_cursor)}`).expect(200)).body;
      expect(next.data.map((r: Json) => r.external_id)).toEqual(['l3']);
      expect(next.has_more).toBe(false);
      await fresh.get('/external_transactions?status=closed').expect(422);
      await fresh.get('/external_transactions?from=soon').expect(422);
      await fresh.get('/external_transactions?cursor=forged').expect(422);
    });

    it('keeps rows to their ledger (404 elsewhere)', async () => {
      const [first] = (await fresh.get('/external_transactions?limit=1').expect(200)).body.data;
      await fresh.get(`/external_transactions/${first.id}`).expect(200);
      await api.get(`/external_transactions/${first.id}`).expect(404);
      await api.get('/external_transactions/nope').expect(404);
      expect((await other.get('/external_transactions').expect(200)).body.data).toEqual([]);
    });
  });

  describe('ignore, match, unmatch', () => {
    it('ignores an open row once (event), and refuses to ignore a matched one', async () => {
      const r = await row();
      const res = await api.post(`/external_transactions/${r.id}/ignore`, { reason: 'bank fee' }).expect(200);
      expect(res.body.data).toEqual(expect.objectContaining({ status: 'ignored', ignored_reason: 'bank fee' }));
      await api.post(`/external_transactions/${r.id}/ignore`, {}).expect(200);
      const events = (await api.events('external_transaction.ignored')).filter((e) => e.resource_id === r.id);
      expect(events).toHaveLength(1);
      expect((events[0].payload ?? events[0].data) as Json).toEqual(expect.objectContaining({ reason: 'bank fee' }));
      // An ignored row is not open: it cannot be matched or unmatched.
      const { cash } = await sale('1000');
      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [cash.id] }).expect(409);
      await api.post(`/external_transactions/${r.id}/unmatch`, {}).expect(409);
      await other.post(`/external_transactions/${r.id}/ignore`, {}).expect(404);
    });

    it('matches postings whose signed sum equals the row, in one transaction, then unmatches them', async () => {
      const a = await sale('600');
      const b = await sale('400');
      const r = await row({ amount: '1000' });
      const res = await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [a.cash.id, String(b.cash.id)], note: 'two deposits' }).expect(201);
      const match = res.body.data;
      expect(match).toEqual({
        object: 'reconciliation_match',
        id: expect.any(String),
        external_transaction_id: r.id,
        reconciliation_run_id: null,
        strategy: 'manual',
        posting_ids: [a.cash.id, b.cash.id].sort((x, y) => x - y),
        amount: '1000',
        currency: 'USD',
        residual: '0',
        auto_resolved: false,
        note: 'two deposits',
        created_at: expect.any(String),
        reversed_at: null,
        reversed_reason: null,
      });
      const matched = (await api.get(`/external_transactions/${r.id}`).expect(200)).body.data;
      expect(matched).toEqual(expect.objectContaining({ status: 'matched', reconciliation_match_id: match.id, matched_at: expect.any(String) }));
      const reconciled = (await api.get('/postings?reconciled=true&limit=500').expect(200)).body.data.map((p: Json) => p.id);
      expect(reconciled).toEqual(expect.arrayContaining([a.cash.id, b.cash.id]));
      const created = (await api.events('reconciliation.match_created')).find((e) => e.resource_id === match.id);
      expect((created?.payload ?? created?.data) as Json).toEqual(expect.objectContaining({ match_id: match.id, external_transaction_id: r.id }));

      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [a.cash.id] }).expect(409);
      await api.post(`/external_transactions/${r.id}/ignore`, {}).expect(409);

      const un = await api.post(`/external_transactions/${r.id}/unmatch`, { reason: 'wrong deposit' }).expect(200);
      expect(un.body.data).toEqual(expect.objectContaining({ status: 'open', reconciliation_match_id: null, matched_at: null }));
      const stillReconciled = (await api.get('/postings?reconciled=true&limit=500').expect(200)).body.data.map((p: Json) => p.id);
      expect(stillReconciled).not.toContain(a.cash.id);
      expect((await api.events('reconciliation.match_reversed')).some((e) => e.resource_id === match.id)).toBe(true);
      await api.post(`/external_transactions/${r.id}/unmatch`, {}).expect(409);

      // The released postings can be matched again; the audit keeps both matches.
      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [a.cash.id, b.cash.id] }).expect(201);
      const audit = (await api.get(`/external_transactions/${r.id}/matches`).expect(200)).body;
      expect(audit.object).toBe('list');
      expect(audit.data.map((m: Json) => [m.strategy, m.reversed_at === null, m.reversed_reason])).toEqual([
        ['manual', false, 'wrong deposit'],
        ['manual', true, null],
      ]);
      await other.get(`/external_transactions/${r.id}/matches`).expect(404);
    });

    it('counts credits negative: an outgoing row matches a credit leg', async () => {
      const payout = await api.transfer('cash', 'hold', '300');
      const credit = leg(payout, 'credit');
      const r = await row({ amount: '-300' });
      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [credit.id] }).expect(201);
    });

    it('refuses postings that cannot match with 422 invalid_request, the residual in the hint', async () => {
      const { cash, revenue } = await sale('900');
      const r = await row({ amount: '1000' });
      const short = await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [cash.id] }).expect(422);
      expect(short.body.error).toEqual(expect.objectContaining({ code: 'invalid_request', param: 'posting_ids', hint: expect.stringContaining('residual 100') }));
      // Both legs of one transaction cancel out: residual is the whole amount.
      const both = await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [cash.id, revenue.id] }).expect(422);
      expect(both.body.error.hint).toContain('residual 1000');

      const eur = await sale('1000', 'EUR');
      const currency = await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [eur.cash.id] }).expect(422);
      expect(currency.body.error.message).toContain('EUR');

      const pending = await api.post('/transactions', {
        postings: [
          { account: 'cash', amount: '1000', currency: 'USD', direction: 'debit', pending: true },
          { account: 'revenue', amount: '1000', currency: 'USD', direction: 'credit', pending: true },
        ],
      });
      const pendingCash = leg(pending, 'debit');
      expect((await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [pendingCash.id] }).expect(422)).body.error.message).toContain('pending');

      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: ['99999999'] }).expect(422);
      const foreign = await other.account('cash', 'asset').then(() => other.account('revenue', 'revenue')).then(() => other.transfer('revenue', 'cash', '1000'));
      const foreignCash = leg(foreign, 'debit');
      await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [foreignCash.id] }).expect(422);
      for (const body of [{}, { posting_ids: [] }, { posting_ids: ['abc'] }, { posting_ids: [1.5] }, { posting_ids: ['99999999999999999999'] }]) {
        await api.post(`/external_transactions/${r.id}/match`, body).expect(422);
      }
      expect((await api.get(`/external_transactions/${r.id}`).expect(200)).body.data.status).toBe('open');
      await api.post('/external_transactions/00000000-0000-4000-8000-000000000000/match', { posting_ids: [cash.id] }).expect(404);

      // A posting already matched elsewhere is not free.
      const exact = await row({ amount: '900' });
      await api.post(`/external_transactions/${exact.id}/match`, { posting_ids: [cash.id] }).expect(201);
      const twin = await row({ amount: '900' });
      const taken = await api.post(`/external_transactions/${twin.id}/match`, { posting_ids: [cash.id] }).expect(422);
      expect(taken.body.error.message).toContain('already reconciled');
    });

    it('lets exactly one of parallel matches of one posting succeed', async () => {
      for (let round = 0; round < 3; round++) {
        const { cash } = await sale('500');
        const rows = await Promise.all(Array.from({ length: 6 }, () => row({ amount: '500' })));
        const answers = await Promise.all(rows.map((r) => api.post(`/external_transactions/${r.id}/match`, { posting_ids: [cash.id] })));
        const statuses = answers.map((a) => a.status);
        expect(statuses.filter((s) => s === 201)).toHaveLength(1);
        for (const a of answers.filter((x) => x.status !== 201)) {
          expect([409, 422]).toContain(a.status);
          expect(['invalid_state', 'invalid_request']).toContain(a.body.error.code);
        }
        const matchedRows = (await api.get('/external_transactions?status=matched&limit=200').expect(200)).body.data.filter((r: Json) =>
          rows.some((x) => x.id === r.id),
        );
        expect(matchedRows).toHaveLength(1);
      }
    });
  });

  describe('the database backstop', () => {
    it('answers 409 invalid_state, not 500, when the live-posting index refuses a match another writer holds', async () => {
      const { cash } = await sale('75');
      const holder = await row({ amount: '75' });
      // Another writer's live match that has not set reconciled_at yet: only the unique index sees it.
      const ds = api.db;
      const [m] = await ds.query(
        `INSERT INTO reconciliation_matches (ledger_id, external_transaction_id, strategy, posting_ids, amount, currency)
         VALUES ($1, $2, 'exact', ARRAY[$3::bigint], 75, 'USD') RETURNING id`,
        [api.client.ledgerId, holder.id, cash.id],
      );
      await ds.query(`INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id) VALUES ($1, $2, $3)`, [m.id, cash.id, api.client.ledgerId]);
      const r = await row({ amount: '75' });
      const res = await api.post(`/external_transactions/${r.id}/match`, { posting_ids: [cash.id] }).expect(409);
      expect(res.body.error.code).toBe('invalid_state');
      expect((await api.get(`/external_transactions/${r.id}`).expect(200)).body.data.status).toBe('open');
      expect((await api.get(`/external_transactions/${r.id}/matches`).expect(200)).body.data).toEqual([]);
    });
  });

  describe('POST /postings/{id}/reconciliations', () => {
    it('marks a posting reconciled by hand and answers it as GET /postings shows it', async () => {
      const { cash } = await sale('250');
      const res = await api.post(`/postings/${cash.id}/reconciliations`, { external_reference: 'stmt-2026-03' }).expect(200);
      const listed = (await api.get('/postings?reconciled=true&limit=500').expect(200)).body.data.find((p: Json) => p.id === cash.id);
      expect(res.body.data).toEqual(listed);
      expect(res.body.data).toEqual(
        expect.objectContaining({ object: 'posting', id: cash.id, reconciled_at: expect.any(String), reconciliation_reference: 'stmt-2026-03' }),
      );
      // Again: the first reconciled_at stays.
      const again = await api.post(`/postings/${cash.id}/reconciliations`, {}).expect(200);
      expect(again.body.data.reconciled_at).toBe(res.body.data.reconciled_at);
      expect(again.body.data.reconciliation_reference).toBe('stmt-2026-03');
    });

    it('is 404 for unknown or foreign postings and 422 for a run of no ledger of the caller', async () => {
      const { cash } = await sale('10');
      await other.post(`/postings/${cash.id}/reconciliations`, {}).expect(404);
      await api.post('/postings/99999999/reconciliations', {}).expect(404);
      await api.post('/postings/abc/reconciliations', {}).expect(404);
      const res = await api.post(`/postings/${cash.id}/reconciliations`, { reconciliation_run_id: '00000000-0000-4000-8000-000000000000' }).expect(422);
      expect(res.body.error.param).toBe('reconciliation_run_id');
    });
  });
});
