import request from 'supertest';
import { booksStack } from '../books-api';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { startLedgerTestApp } from '../ledger-test-app';

describe('bearer authentication, scopes and envelopes', () => {
  const stack = booksStack('auth', { scopes: ['ledger:read', 'ledger:write'] });

  const get = (path: string, token?: string) => {
    const req = request(stack.t.app.getHttpServer()).get(path);
    return token ? req.set('Authorization', `Bearer ${token}`) : req;
  };

  it('answers GET /organizations/me in the single envelope, test mode', async () => {
    const res = await get('/ledger/v1/organizations/me', await accessToken(stack.t, stack.client)).expect(200);
    const requestId = res.headers['x-request-id'];
    expect(res.body).toEqual({
      data: {
        object: 'organization',
        id: stack.client.organizationId,
        name: 'Acme',
        plan: 'free',
        metadata: {},
        viewer_role: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      livemode: false,
      request_id: requestId,
    });
  });

  it('reports livemode true for a live client', async () => {
    const live = await stack.fx.client({ mode: 'live', scopes: ['ledger:read'], organizationId: stack.client.organizationId });
    const res = await get('/ledger/v1/organizations/me', await accessToken(stack.t, live)).expect(200);
    expect(res.body.livemode).toBe(true);
    expect(res.body.data.id).toBe(stack.client.organizationId);
  });

  it('refuses a missing bearer token with 401 unauthorized and a Bearer challenge', async () => {
    const res = await get('/ledger/v1/organizations/me').expect(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.body.livemode).toBe(false);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="bursar-ledger"');
  });

  it.each([
    ['a malformed token', 'not-a-jwt'],
    ['a token signed with another key', 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
  ])('refuses %s with 401 unauthorized, invalid_token', async (_label, token) => {
    const res = await get('/ledger/v1/organizations/me', token).expect(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses a token of another deployment (different LEDGER_SECRET_KEY)', async () => {
    const other = await startLedgerTestApp('auth_other');
    try {
      const foreign = await accessToken(other, await LedgerFixtures.of(other).client());
      await get('/ledger/v1/organizations/me', foreign).expect(401);
    } finally {
      await other.close();
    }
  });

  it('answers a token without the needed scope with 403 insufficient_scope naming it', async () => {
    const token = await accessToken(stack.t, stack.client, 'ledger:write');
    const res = await get('/ledger/v1/organizations/me', token).expect(403);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="bursar-ledger", error="insufficient_scope", scope="ledger:read"');
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope', hint: expect.stringContaining('ledger:read') });
  });
});
