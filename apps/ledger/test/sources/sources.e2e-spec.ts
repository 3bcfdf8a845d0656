import { SourcesService } from '../../src/sources/sources.service';
import { BooksApi, booksStack } from '../books-api';

describe('Sources (reference s.12)', () => {
  const api = booksStack('sources');
  let other: BooksApi;

  beforeAll(async () => {
    other = await BooksApi.start(api.t);
  });

  it('creates a source with its defaults, lowercasing the name', async () => {
    const res = await api.post('/sources', { name: 'Chase-Operating', description: 'main bank', metadata: { team: 'ops' } }).expect(201);
    expect(res.body.data).toEqual({
      object: 'source',
      id: expect.any(String),
      name: 'chase-operating',
      kind: 'custom',
      description: 'main bank',
      implicit: false,
      default_strategy: 'exact',
      default_window_seconds: 86400,
      default_tolerance_minor_units: '0',
      default_account_id: null,
      account_map: {},
      csv_mapping: null,
      inbound_enabled: false,
      inbound_url: null,
      sync_enabled: false,
      sync_status: null,
      sync_error: null,
      connected_ref: null,
      last_synced_at: null,
      metadata: { team: 'ops' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body).toEqual(expect.objectContaining({ livemode: false, request_id: expect.stringMatching(/^req_/) }));
  });

  it('refuses a duplicate name, whatever its case, with 409 already_exists', async () => {
    await api.post('/sources', { name: 'dup-bank' }).expect(201);
    const res = await api.post('/sources', { name: 'DUP-Bank' }).expect(409);
    expect(res.body.error).toEqual(expect.objectContaining({ code: 'already_exists', param: 'name' }));
    // Names are per ledger: another ledger may use it.
    await other.post('/sources', { name: 'dup-bank' }).expect(201);
  });

  it('promotes an implicit source (made by an inline run) instead of refusing it', async () => {
    const ds = api.db;
    const [implicit] = await ds.query(`INSERT INTO reconciliation_sources (ledger_id, name, implicit) VALUES ($1, 'stripe', true) RETURNING id`, [
      api.client.ledgerId,
    ]);
    const res = await api.post('/sources', { name: 'Stripe', default_strategy: 'sum_in_window', default_window_seconds: 3600 }).expect(201);
    expect(res.body.data).toEqual(
      expect.objectContaining({ id: implicit.id, name: 'stripe', implicit: false, default_strategy: 'sum_in_window', default_window_seconds: 3600 }),
    );
    // Once explicit, the name is taken like any other.
    await api.post('/sources', { name: 'stripe' }).expect(409);
  });

  it('finds or creates an implicit source by name, one row under parallel callers (what inline runs use)', async () => {
    const sources = api.t.app.get(SourcesService);
    const scope = { organizationId: api.client.organizationId, mode: 'test' as const, ledgerId: api.client.ledgerId };
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => sources.findOrCreateImplicit(scope, i % 2 ? 'Adyen' : 'adyen')));
    expect(new Set(made.map((s) => s.id)).size).toBe(1);
    expect(made[0]).toEqual(expect.objectContaining({ name: 'adyen', implicit: true }));
    expect((await api.get(`/sources/${made[0].id}`).expect(200)).body.data.implicit).toBe(true);
    // An explicit source is found as it is, not turned implicit.
    const explicit = (await api.post('/sources', { name: 'explicit-bank' }).expect(201)).body.data;
    expect(await sources.findOrCreateImplicit(scope, 'explicit-bank')).toEqual(expect.objectContaining({ id: explicit.id, implicit: false }));
    await expect(sources.get(scope, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'not_found' });
    await expect(sources.findOrCreateImplicit(scope, '  ')).rejects.toMatchObject({ code: 'invalid_request', extras: { param: 'source' } });
  });

  it("walks the reference client's reconciliation check: a custody source, ingest, the source's rows, ignore, matches", async () => {
    const stamp = String(Date.now());
    const source = (await api.post('/sources', { name: `sdk-validation-${stamp}`, kind: 'custody' }).expect(201)).body.data;
    expect(source).toMatchObject({ object: 'source', name: `sdk-validation-${stamp}`, kind: 'custody' });
    const ingest = await api
      .post(`/sources/${source.id}/external_transactions`, {
        items: [{ external_id: `0xsdk${stamp}`, amount: '12345', currency: 'USDC', occurred_at: new Date().toISOString() }],
      })
      .expect(201);
    expect(ingest.body.data).toMatchObject({ object: 'ingest_result', source_id: source.id, created_count: 1 });
    const page = await api.get(`/external_transactions?source_id=${source.id}&limit=5`).expect(200);
    expect(page.body).toMatchObject({ object: 'list', has_more: false, data: [expect.objectContaining({ external_id: `0xsdk${stamp}` })] });
    const row = page.body.data[0];
    const ignored = await api.post(`/external_transactions/${row.id}/ignore`, { reason: 'validation run' }).expect(200);
    expect(ignored.body.data.status).toBe('ignored');
    const matches = await api.get(`/external_transactions/${row.id}/matches`).expect(200);
    expect(matches.body).toMatchObject({ object: 'list', data: expect.any(Array) });
  });

  it('validates the settings with 422 invalid_request', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: 'ok', default_strategy: 'fuzzy' },
      { name: 'ok', default_window_seconds: -1 },
      { name: 'ok', default_tolerance_minor_units: '-5' },
      { name: 'ok', kind: 'Not A Kind' },
      { name: 'ok', kind: 7 },
      { name: 'ok', unknown_field: 1 },
    ]) {
      const res = await api.post('/sources', body);
      expect([res.status, res.body.error?.code]).toEqual([422, 'invalid_request']);
    }
    const blank = await api.post('/sources', { name: '   ' }).expect(422);
    expect(blank.body.error.param).toBe('name');
  });

  it('gets, patches and keeps other ledgers out (404)', async () => {
    const { id } = (await api.post('/sources', { name: 'wise' }).expect(201)).body.data;
    expect((await api.get(`/sources/${id}`).expect(200)).body.data.name).toBe('wise');
    const changes = {
      description: 'EUR account',
      metadata: { a: '1' },
      default_strategy: 'sum_in_window',
      default_window_seconds: 7200,
      default_tolerance_minor_units: '25',
      default_account_id: 'cash:eur',
    };
    const patched = await api.patch(`/sources/${id}`, changes).expect(200);
    expect(patched.body.data).toEqual(expect.objectContaining({ ...changes, name: 'wise' }));
    // Absent fields stay; null clears the nullable ones.
    const cleared = await api.patch(`/sources/${id}`, { description: null }).expect(200);
    expect(cleared.body.data).toEqual(expect.objectContaining({ description: null, default_window_seconds: 7200 }));
    await api.patch(`/sources/${id}`, { name: 'renamed' }).expect(422);

    await other.get(`/sources/${id}`).expect(404);
    await other.patch(`/sources/${id}`, { description: 'x' }).expect(404);
    await api.get('/sources/not-a-uuid').expect(404);
    await api.get('/sources/00000000-0000-4000-8000-000000000000').expect(404);
  });

  it('honours If-Match on PATCH with the ETag of GET (409 precondition_failed when stale)', async () => {
    const { id } = (await api.post('/sources', { name: 'etag-bank' }).expect(201)).body.data;
    const etag = (await api.get(`/sources/${id}`).expect(200)).headers.etag;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const changed = await api.patch(`/sources/${id}`, { description: 'v2' }).set('If-Match', etag).expect(200);
    expect(changed.headers.etag).not.toBe(etag);
    const stale = await api.patch(`/sources/${id}`, { description: 'v3' }).set('If-Match', etag).expect(409);
    expect(stale.body.error.code).toBe('precondition_failed');
    expect((await api.get(`/sources/${id}`).expect(200)).body.data.description).toBe('v2');
  });

  it('lists newest first with a cursor, one ledger only', async () => {
    const fresh = await BooksApi.start(api.t);
    const names = ['s1', 's2', 's3', 's4', 's5'];
    for (const name of names) await fresh.post('/sources', { name }).expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { name: string }[]; has_more: boolean; next_cursor: string | null } } = await fresh
        .get(`/sources?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        .expect(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((s) => s.name));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...names].reverse());
    const withTotal = await fresh.get('/sources?include_total=true').expect(200);
    expect(withTotal.body).toEqual(expect.objectContaining({ object: 'list', total: 5, has_more: false }));
    await fresh.get('/sources?cursor=forged').expect(422);
    await fresh.get('/sources?limit=0').expect(422);
  });

  it('needs the scopes: reads ledger:read, writes ledger:write', async () => {
    const reader = await BooksApi.start(api.t, ['ledger:read']);
    await reader.get('/sources').expect(200);
    const res = await reader.post('/sources', { name: 'nope' }).expect(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});
