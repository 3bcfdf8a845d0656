import { LedgersService } from '../../src/ledgers/ledgers.service';
import { ledgerApi } from '../ledger-api-client';
import { accessToken } from '../ledger-fixtures';
import { booksStack } from '../books-api';

describe('Ledger selection (@CurrentLedger)', () => {
  const stack = booksStack('ledger_selection');
  const api = ledgerApi(stack);

  const select = (choice: { claim?: string | null; header?: string; param?: string }, mode: 'test' | 'live' = 'test') =>
    stack.t.app.get(LedgersService).select({ tenant: { organizationId: stack.client.organizationId, mode }, claim: null, ...choice });

  it('prefers the token claim, then X-Ledger-Id, then ledger_id, then the oldest unarchived ledger of the mode', async () => {
    const second = await stack.fx.ledger(stack.client.organizationId, 'test', 'second');
    const third = await stack.fx.ledger(stack.client.organizationId, 'test', 'third');
    expect((await select({ claim: stack.client.ledgerId, header: second, param: third })).id).toBe(stack.client.ledgerId);
    expect((await select({ header: second, param: third })).id).toBe(second);
    expect((await select({ param: third })).id).toBe(third);
    expect((await select({})).id).toBe(stack.client.ledgerId);

    await api.patch(`/ledgers/${stack.client.ledgerId}`, { archived_at: new Date().toISOString() }).expect(200);
    expect((await select({})).id).toBe(second);
    await api.patch(`/ledgers/${stack.client.ledgerId}`, { archived_at: null }).expect(200);
  });

  it('answers 404 when the mode has no ledger at all', async () => {
    await expect(select({}, 'live')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('routes honour X-Ledger-Id: own ledger 200, malformed 422, another tenant or mode 404', async () => {
    const other = await stack.fx.ledger(stack.client.organizationId, 'test', 'other');
    // A pinned client's claim beats the header, so even a foreign id is ignored for it.
    await api.get('/events').set('X-Ledger-Id', other).expect(200);

    const unpinned = await stack.fx.client();
    const liveLedger = await stack.fx.ledger(unpinned.organizationId, 'live');
    const stranger = await stack.fx.client();
    // Unpin the client so its tokens carry no ledger claim and the header decides.
    await stack.db.query('UPDATE oauth_clients SET ledger_id = NULL WHERE id = $1', [unpinned.clientId]);
    const free = ledgerApi({ t: stack.t, token: await accessToken(stack.t, unpinned) });

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
