import request from 'supertest';
import { DataSource } from 'typeorm';
import { LedgerScope } from '../../src/common/mode';
import { EventsService } from '../../src/events/events.service';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

describe('Events tail', () => {
  let t: LedgerTestApp;
  let client: TestClient;
  let token: string;
  let scope: LedgerScope;

  const get = (path: string, bearer = token) =>
    request(t.app.getHttpServer()).get(`/ledger/v1${path}`).set('Authorization', `Bearer ${bearer}`);

  /** Records events the way feature modules do: inside their own transaction. */
  const record = (type: string, resourceId: string | null, data: object, at = scope) =>
    t.app.get(DataSource).transaction((manager) => t.app.get(EventsService).record(manager, at, type, resourceId, data));

  beforeAll(async () => {
    t = await startLedgerTestApp('events');
    client = await LedgerFixtures.of(t).client({ scopes: ['ledger:read'] });
    token = await accessToken(t, client);
    scope = { organizationId: client.organizationId, mode: 'test', ledgerId: client.ledgerId };
    await record('account.created', 'cash', { id: 'cash', object: 'account' });
    await record('transaction.created', 'tx-1', { id: 'tx-1', object: 'transaction' });
    await record('transaction.reversed', 'tx-1', { id: 'tx-1', object: 'transaction' });
  });
  afterAll(() => t.close());

  it('lists newest first with the event shape and the list envelope', async () => {
    const res = await get('/events').expect(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, livemode: false });
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual([
      'transaction.reversed', 'transaction.created', 'account.created',
    ]);
    expect(res.body.data[2]).toEqual({
      object: 'event',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'account.created',
      resource_id: 'cash',
      ledger_id: client.ledgerId,
      created_at: expect.any(String),
      data: { id: 'cash', object: 'account' },
      // R1 clients read the body as payload.
      payload: { id: 'cash', object: 'account' },
      livemode: false,
    });
  });

  it('reads one event and answers 404 for unknown or malformed ids', async () => {
    const [first] = (await get('/events').expect(200)).body.data;
    const one = await get(`/events/${first.id}`).expect(200);
    expect(one.body.data).toEqual(first);
    expect((await get('/events/00000000-0000-4000-8000-000000000000').expect(404)).body.error.code).toBe('not_found');
    await get('/events/not-a-uuid').expect(404);
  });

  it('filters by type and resource_id', async () => {
    const byType = await get('/events?type=transaction.created').expect(200);
    expect(byType.body.data.map((e: { type: string }) => e.type)).toEqual(['transaction.created']);
    const byResource = await get('/events?resource_id=tx-1').expect(200);
    expect(byResource.body.data).toHaveLength(2);
  });

  it('filters by since, ISO or relative, and ignores unparseable values', async () => {
    expect((await get('/events?since=1h').expect(200)).body.data).toHaveLength(3);
    expect((await get('/events?since=2999-01-01T00:00:00Z').expect(200)).body.data).toHaveLength(0);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await get(`/events?since=${future}`).expect(200)).body.data).toHaveLength(0);
    expect((await get('/events?since=yesterday-ish').expect(200)).body.data).toHaveLength(3);
  });

  it('pages with an opaque cursor and validates limit and cursor', async () => {
    const first = await get('/events?limit=2').expect(200);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await get(`/events?limit=2&cursor=${first.body.next_cursor}`).expect(200);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((e: { type: string }) => e.type)).toEqual(['account.created']);
    expect((await get('/events?limit=1&include_total=true&type=transaction.created').expect(200)).body.total).toBe(1);
    expect((await get('/events?limit=0').expect(422)).body.error.code).toBe('invalid_request');
    await get('/events?limit=201').expect(422);
    expect((await get('/events?cursor=garbage').expect(422)).body.error.param).toBe('cursor');
  });

  it("never shows another ledger's events", async () => {
    const other = await LedgerFixtures.of(t).client({ scopes: ['ledger:read'] });
    await record('account.created', 'other', { id: 'other' }, {
      organizationId: other.organizationId, mode: 'test', ledgerId: other.ledgerId,
    });
    const mine = await get('/events').expect(200);
    expect(mine.body.data.map((e: { resource_id: string }) => e.resource_id)).not.toContain('other');
    const theirs = await get('/events', await accessToken(t, other)).expect(200);
    expect(theirs.body.data.map((e: { resource_id: string }) => e.resource_id)).toEqual(['other']);
    await get(`/events/${mine.body.data[0].id}`, await accessToken(t, other)).expect(404);
  });

  it('needs ledger:read', async () => {
    await request(t.app.getHttpServer()).get('/ledger/v1/events').expect(401);
  });
});
