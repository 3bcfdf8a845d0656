import request from 'supertest';
import { booksStack } from '../books-api';
import { ledgerApi } from '../ledger-api-client';
import { accessToken } from '../ledger-fixtures';

const ADMIN_SCOPES = ['ledger:read', 'ledger:clients:read', 'ledger:clients:write'];

describe('OAuth client management', () => {
  const stack = booksStack('oauth_clients', { scopes: ADMIN_SCOPES });

  const api = (bearer = stack.token) => ledgerApi({ t: stack.t, token: bearer });
  const grant = (id: string, secret: string) =>
    request(stack.t.app.getHttpServer()).post('/oauth/token').type('form').auth(id, secret).send({ grant_type: 'client_credentials' });
  const create = (body: Record<string, unknown> = {}) =>
    api().post('/oauth_clients', { name: 'Reporting', mode: 'test', scopes: ['ledger:read'], ledger_id: stack.client.ledgerId, ...body });

  it('creates a client whose secret is shown once and works at the token endpoint', async () => {
    const res = await create().expect(201);
    expect(res.body.livemode).toBe(false);
    const created = res.body.data;
    expect(created).toEqual({
      object: 'oauth_client',
      id: expect.stringMatching(/^client_/),
      client_id: created.id,
      name: 'Reporting',
      mode: 'test',
      scopes: ['ledger:read'],
      ledger_id: stack.client.ledgerId,
      active: true,
      last_used_at: null,
      created_at: expect.any(String),
      client_secret: expect.stringMatching(/^sk_test_/),
      client_secret_note: expect.any(String),
    });
    await grant(created.id, created.client_secret).expect(200);

    const read = await api().get(`/oauth_clients/${created.id}`).expect(200);
    expect(read.body.data).not.toHaveProperty('client_secret');
    expect(read.body.data.last_used_at).not.toBeNull();

    const list = await api().get('/oauth_clients').expect(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, livemode: false });
    expect(list.body).not.toHaveProperty('total');
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([stack.client.clientId, created.id]);
  });

  it('accepts the reference SDK short scope names and grants the full ones', async () => {
    const res = await create({ scopes: ['read', 'period_close', 'clients:read'] }).expect(201);
    expect(res.body.data.scopes).toEqual(['ledger:read', 'ledger:period_close', 'ledger:clients:read']);
    const granted = await grant(res.body.data.id, res.body.data.client_secret).expect(200);
    expect(granted.body.scope).toBe('ledger:read ledger:period_close ledger:clients:read');
  });

  it.each([
    [{ scopes: ['admin'] }, 'scopes'],
    [{ name: '' }, 'name'],
    [{ mode: 'prod' }, 'mode'],
    [{ scopes: ['ledger:everything'] }, 'scopes'],
    [{ scopes: [] }, 'scopes'],
    [{ ledger_id: 'nope' }, 'ledger_id'],
    [{ extra: 1 }, 'extra'],
  ])('refuses %j with 422 invalid_request naming %s', async (body, param) => {
    const res = await create(body).expect(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('keeps modes and organizations apart: 404 for the other mode\'s rows, 403 for creating them', async () => {
    const live = await stack.fx.client({ mode: 'live', scopes: ADMIN_SCOPES, organizationId: stack.client.organizationId });
    const stranger = await stack.fx.client({ scopes: ADMIN_SCOPES });
    await api().get(`/oauth_clients/${live.clientId}`).expect(404);
    await api().get(`/oauth_clients/${stranger.clientId}`).expect(404);
    await api().delete(`/oauth_clients/${live.clientId}`).expect(404);
    await api().post(`/oauth_clients/${live.clientId}/rotate_secret`).expect(404);
    const listed = await api().get('/oauth_clients?mode=live').expect(200);
    expect(listed.body.data).toEqual([]);

    const liveLedger = await stack.fx.ledger(stack.client.organizationId, 'live');
    const res = await create({ mode: 'live', ledger_id: liveLedger }).expect(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', param: 'mode' });
    const missing = await create({ ledger_id: liveLedger }).expect(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', param: 'ledger_id' });

    const liveToken = await accessToken(stack.t, live);
    const liveList = await api(liveToken).get('/oauth_clients').expect(200);
    expect(liveList.body.livemode).toBe(true);
    expect(liveList.body.data.map((c: { id: string }) => c.id)).toEqual([live.clientId]);
  });

  it('needs the clients scopes', async () => {
    const reader = await stack.fx.client({ scopes: ['ledger:read', 'ledger:write'] });
    const readerToken = await accessToken(stack.t, reader);
    const res = await api(readerToken).get('/oauth_clients').expect(403);
    expect(res.headers['www-authenticate']).toContain('scope="ledger:clients:read"');
    const readOnly = await accessToken(stack.t, stack.client, 'ledger:clients:read');
    const denied = await api(readOnly).post(`/oauth_clients/${stack.client.clientId}/rotate_secret`).expect(403);
    expect(denied.headers['www-authenticate']).toContain('scope="ledger:clients:write"');
  });

  it('rotates with a 24-hour overlap, refuses a second rotation inside it, and forces on request', async () => {
    const created = (await create().expect(201)).body.data;
    const first = await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(200);
    const expiresAt = Date.parse(first.body.data.previous_secret_expires_at);
    expect(expiresAt - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(first.body.data.client_secret).not.toBe(created.client_secret);
    await grant(created.id, created.client_secret).expect(200);
    await grant(created.id, first.body.data.client_secret).expect(200);

    const again = await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(409);
    expect(again.body.error).toMatchObject({ code: 'rotation_in_progress', hint: expect.stringContaining('force=true') });

    const forced = await api().post(`/oauth_clients/${created.id}/rotate_secret?force=true`).expect(200);
    expect(forced.body.data.previous_secret_expires_at).toBeNull();
    await grant(created.id, created.client_secret).expect(401);
    await grant(created.id, first.body.data.client_secret).expect(401);
    await grant(created.id, forced.body.data.client_secret).expect(200);
    await api().post(`/oauth_clients/${created.id}/rotate_secret?force=yes`).expect(422);
  });

  it('stops accepting the previous secret once its window has passed', async () => {
    const created = (await create().expect(201)).body.data;
    await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(200);
    await stack.db.query(`UPDATE oauth_clients SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    await grant(created.id, created.client_secret).expect(401);
    await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(200);
  });

  it('disables a client on DELETE: no new tokens, still readable as inactive', async () => {
    const created = (await create().expect(201)).body.data;
    const res = await api().delete(`/oauth_clients/${created.id}`).expect(200);
    expect(res.body.data).toEqual({ object: 'oauth_client', id: created.id, deleted: true });
    const failed = await grant(created.id, created.client_secret).expect(401);
    expect(failed.body.error).toBe('invalid_client');
    expect((await api().get(`/oauth_clients/${created.id}`).expect(200)).body.data.active).toBe(false);
    const rotate = await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(409);
    expect(rotate.body.error.code).toBe('invalid_state');
  });

  it("announces create, rotation and delete in the pinned ledger's events, never with a secret", async () => {
    const created = (await create().expect(201)).body.data;
    await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(200);
    await api().post(`/oauth_clients/${created.id}/rotate_secret`).expect(409);
    await api().delete(`/oauth_clients/${created.id}`).expect(200);
    await api().delete(`/oauth_clients/${created.id}`).expect(200);
    const events = (await api().get(`/events?resource_id=${created.id}`).expect(200)).body.data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['oauth_client.deleted', 'oauth_client.secret_rotated', 'oauth_client.created']);
    expect(events[0].data).toMatchObject({ object: 'oauth_client', id: created.id, active: false });
    expect(JSON.stringify(events)).not.toMatch(/sk_test_|client_secret/);
  });
});
