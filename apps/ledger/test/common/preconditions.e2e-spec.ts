import { ledgerApi } from '../ledger-api-client';
import { accessToken } from '../ledger-fixtures';
import { booksStack } from '../books-api';

describe('Conditional writes: If-Match / If-Unmodified-Since', () => {
  const stack = booksStack('preconditions');
  const api = ledgerApi(stack);

  const path = () => `/ledgers/${stack.client.ledgerId}`;

  it('applies a PATCH whose If-Match is current and refuses a stale one with 409 precondition_failed', async () => {
    const { headers } = await api.get(path()).expect(200);
    const etag = headers.etag;
    const ok = await api.patch(path(), { name: 'Renamed' }).set('If-Match', etag).expect(200);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await api.patch(path(), { name: 'Lost update' }).set('If-Match', etag).expect(409);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', details: { header: 'If-Match' } });
    expect((await api.get(path())).body.data.name).toBe('Renamed');
    await api.patch(path(), { description: 'any version' }).set('If-Match', '*').expect(200);
    await api.patch(path(), { description: 'listed' }).set('If-Match', `"nope", ${(await api.get(path())).headers.etag}`).expect(200);
  });

  it('lets exactly one of two writers holding the same ETag win', async () => {
    const { headers } = await api.get(path()).expect(200);
    const results = await Promise.all(
      ['A', 'B'].map((name) => api.patch(path(), { name }).set('If-Match', headers.etag)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('compares If-Unmodified-Since with Last-Modified at whole seconds', async () => {
    const { headers } = await api.get(path()).expect(200);
    await api.patch(path(), { description: 'fresh' }).set('If-Unmodified-Since', headers['last-modified']).expect(200);
    const old = new Date(Date.now() - 3_600_000).toUTCString();
    const res = await api.patch(path(), { description: 'stale' }).set('If-Unmodified-Since', old).expect(409);
    expect(res.body.error).toMatchObject({ code: 'precondition_failed', details: { header: 'If-Unmodified-Since' } });
    // RFC 9110: an unparseable date is ignored.
    await api.patch(path(), { description: 'ignored header' }).set('If-Unmodified-Since', 'whenever').expect(200);
  });

  it('guards OAuth client renames the same way, and keeps other fields fixed', async () => {
    const admin = await stack.fx.client({ scopes: ['ledger:clients:read', 'ledger:clients:write'] });
    const clients = ledgerApi({ t: stack.t, token: await accessToken(stack.t, admin) });
    const path = `/oauth_clients/${admin.clientId}`;
    const { headers } = await clients.get(path).expect(200);
    // Issuing a token (last_used_at) is not a change of the client.
    await accessToken(stack.t, admin);
    const renamed = await clients.patch(path, { name: 'Renamed client' }).set('If-Match', headers.etag).expect(200);
    expect(renamed.body.data.name).toBe('Renamed client');
    const stale = await clients.patch(path, { name: 'Lost' }).set('If-Match', headers.etag).expect(409);
    expect(stale.body.error.code).toBe('precondition_failed');
    const fixed = await clients.patch(path, { scopes: ['ledger:write'] }).expect(422);
    expect(fixed.body.error).toMatchObject({ code: 'invalid_request', param: 'scopes' });
    await clients.patch(`/oauth_clients/client_nope`, { name: 'x' }).expect(404);
  });
});
