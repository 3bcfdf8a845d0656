import request from 'supertest';
import { ledgerApi } from '../ledger-api-client';
import { booksStack } from '../books-api';

describe('Ledgers and the organization', () => {
  const stack = booksStack('ledgers');
  const api = ledgerApi(stack);

  it('creates, reads, lists and updates ledgers of the token\'s mode', async () => {
    const created = await api.post('/ledgers', { name: 'EU books', mode: 'test', metadata: { region: 'eu' } }).expect(201);
    const ledger = created.body.data;
    expect(ledger).toEqual({
      object: 'ledger',
      id: expect.any(String),
      name: 'EU books',
      mode: 'test',
      description: null,
      archived_at: null,
      metadata: { region: 'eu' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await api.get(`/ledgers/${ledger.id}`).expect(200);
    expect(read.body.data).toEqual(ledger);
    expect(read.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);

    const patched = await api.patch(`/ledgers/${ledger.id}`, { description: 'Euro entity', archived_at: '2026-01-01T00:00:00Z' }).expect(200);
    expect(patched.body.data).toMatchObject({ description: 'Euro entity', archived_at: '2026-01-01T00:00:00.000Z' });
    expect(patched.headers.etag).not.toBe(read.headers.etag);

    const list = await api.get('/ledgers').expect(200);
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([stack.client.ledgerId]);
    const all = await api.get('/ledgers?include_archived=true').expect(200);
    expect(all.body.data.map((l: { id: string }) => l.id)).toEqual([stack.client.ledgerId, ledger.id]);
    expect((await api.get('/ledgers?mode=live').expect(200)).body.data).toEqual([]);
  });

  it('keeps the mode: 403 creating the other mode, 409 immutable_field changing it', async () => {
    const res = await api.post('/ledgers', { name: 'Live', mode: 'live' }).expect(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', param: 'mode' });
    const change = await api.patch(`/ledgers/${stack.client.ledgerId}`, { mode: 'live' }).expect(409);
    expect(change.body.error).toMatchObject({ code: 'immutable_field', param: 'mode' });
  });

  it('hides ledgers of other organizations and modes behind 404', async () => {
    const stranger = await stack.fx.client();
    const live = await stack.fx.ledger(stack.client.organizationId, 'live');
    for (const id of [stranger.ledgerId, live, 'not-a-uuid']) {
      expect((await api.get(`/ledgers/${id}`).expect(404)).body.error.code).toBe('not_found');
      await api.patch(`/ledgers/${id}`, { name: 'mine now' }).expect(404);
    }
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 7 }, 'name'],
    [{ metadata: 'x' }, 'metadata'],
    [{ archived_at: 'yesterday' }, 'archived_at'],
    [{ owner: 'me' }, 'owner'],
  ])('refuses PATCH %j with 422 naming %s', async (body, param) => {
    const res = await api.patch(`/ledgers/${stack.client.ledgerId}`, body).expect(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('answers malformed and oversized JSON with the envelope, never 5xx', async () => {
    const token = stack.token;
    const send = (body: string) =>
      request(stack.t.app.getHttpServer()).post('/ledger/v1/ledgers').set('Authorization', `Bearer ${token}`).type('json').send(body);
    const bad = await send('{"name": ').expect(422);
    expect(bad.body.error.code).toBe('invalid_request');
    const huge = await send(JSON.stringify({ name: 'x', mode: 'test', metadata: { blob: 'x'.repeat(2_000_000) } }));
    expect(huge.status).toBeLessThan(500);
    expect(huge.body.error.code).toBe('invalid_request');
  });

  it('refuses NUL characters and absurdly deep JSON with 422 invalid_request, writing nothing', async () => {
    const token = stack.token;
    const send = (body: string) =>
      request(stack.t.app.getHttpServer()).post('/ledger/v1/ledgers').set('Authorization', `Bearer ${token}`).type('json').send(body);
    const before = (await api.get('/ledgers?include_archived=true').expect(200)).body.data.length;
    for (const body of [
      JSON.stringify({ name: 'nul\u0000name', mode: 'test' }),
      JSON.stringify({ name: 'x', mode: 'test', metadata: { 'k\u0000': 'v' } }),
      `{"name":"deep","mode":"test","metadata":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
    ]) {
      expect((await send(body).expect(422)).body.error.code).toBe('invalid_request');
    }
    expect((await api.get('/ledgers/nul%00id').expect(422)).body.error.code).toBe('invalid_request');
    expect((await api.get('/ledgers?include_archived=true').expect(200)).body.data.length).toBe(before);
  });

  it('shows the caller\'s organization at /organizations/me', async () => {
    const res = await api.get('/organizations/me').expect(200);
    expect(res.body.data).toMatchObject({ object: 'organization', id: stack.client.organizationId, plan: 'free' });
  });
});
