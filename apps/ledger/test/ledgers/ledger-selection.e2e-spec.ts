import { DataSource } from 'typeorm';
import { LedgersService } from '../../src/ledgers/ledgers.service';
import { ledgerApi } from '../ledger-api-client';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

describe('Ledger selection (@CurrentLedger)', () => {
  let t: LedgerTestApp;
  let fx: LedgerFixtures;
  let client: TestClient;
  let api: ReturnType<typeof ledgerApi>;

  beforeAll(async () => {
    t = await startLedgerTestApp('ledger_selection');
    fx = LedgerFixtures.of(t);
    client = await fx.client();
    api = ledgerApi(t, await accessToken(t, client));
  });
  afterAll(() => t.close());

  const select = (choice: { claim?: string | null; header?: string; param?: string }, mode: 'test' | 'live' = 'test') =>
    t.app.get(LedgersService).select({ tenant: { organizationId: client.organizationId, mode }, claim: null, ...choice });

  it('prefers the token claim, then X-Ledger-Id, then ledger_id, then the oldest unarchived ledger of the mode', async () => {
    const second = await fx.ledger(client.organizationId, 'test', 'second');
    const third = await fx.ledger(client.organizationId, 'test', 'third');
    expect((await select({ claim: client.ledgerId, header: second, param: third })).id).toBe(client.ledgerId);
    expect((await select({ header: second, param: third })).id).toBe(second);
    expect((await select({ param: third })).id).toBe(third);
    expect((await select({})).id).toBe(client.ledgerId);

    await api.patch(`/ledgers/${client.ledgerId}`, { archived_at: new Date().toISOString() }).expect(200);
    expect((await select({})).id).toBe(second);
    await api.patch(`/ledgers/${client.ledgerId}`, { archived_at: null }).expect(200);
  });

  it('answers 404 when the mode has no ledger at all', async () => {
    await expect(select({}, 'live')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('routes honour X-Ledger-Id: own ledger 200, malformed 422, another tenant or mode 404', async () => {
    const other = await fx.ledger(client.organizationId, 'test', 'other');
    // A pinned client's claim beats the header, so even a foreign id is ignored for it.
    await api.get('/events').set('X-Ledger-Id', other).expect(200);

    const unpinned = await fx.client();
    const liveLedger = await fx.ledger(unpinned.organizationId, 'live');
    const stranger = await fx.client();
    // Unpin the client so its tokens carry no ledger claim and the header decides.
    await t.app.get(DataSource).query('UPDATE oauth_clients SET ledger_id = NULL WHERE id = $1', [unpinned.clientId]);
    const free = ledgerApi(t, await accessToken(t, unpinned));

    const ok = await free.get('/events').set('X-Ledger-Id', unpinned.ledgerId).expect(200);
    expect(ok.body.livemode).toBe(false);
    const bad = await free.get('/events').set('X-Ledger-Id', 'not-a-uuid').expect(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'X-Ledger-Id' });
    for (const foreign of [liveLedger, stranger.ledgerId]) {
      const res = await free.get('/events').set('X-Ledger-Id', foreign).expect(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
