import { generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer } from '../control-fixtures';
import { startTestIdentityProvider, TEST_AUDIENCE, TestIdentityProvider } from '../test-identity-provider';

describe('identity tokens on workspace routes', () => {
  let idp: TestIdentityProvider;
  let stranger: TestIdentityProvider;
  let t: ControlTestApp;

  beforeAll(async () => {
    [idp, stranger] = await Promise.all([startTestIdentityProvider(['alice']), startTestIdentityProvider(['alice'])]);
    t = await startControlTestApp('identity', idp.env);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([idp.close(), stranger.close()]);
  });

  const listWorkspaces = (headers: Record<string, string> = {}) =>
    request(t.app.getHttpServer()).get('/control/v1/workspaces').set(headers);

  it('admits a JWT access token from the provider, found through its discovery document', async () => {
    const res = await listWorkspaces(bearer(await idp.token('alice'))).expect(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('asks for a token when none is presented', async () => {
    const cases: Record<string, string>[] = [{}, { Authorization: 'Bearer' }, { Authorization: 'Basic YWxpY2U6eA==' }];
    for (const headers of cases) {
      const res = await listWorkspaces(headers).expect(401);
      expect(res.body).toEqual({ error: { message: expect.any(String), code: 'identity_token_required', hint: expect.any(String) } });
    }
  });

  it.each([
    ['malformed', async () => 'not.a.jwt'],
    ['expired', async () => idp.forge({ sub: 'alice' }, Math.floor(Date.now() / 1000) - 60)],
    ['for another audience', async () => idp.token('alice', 'https://elsewhere.test')],
    ['from another issuer', async () => stranger.token('alice')],
    [
      'signed by an unknown key',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'RS256', kid: 'someone-else' })
          .setIssuer(idp.issuer)
          .setAudience(TEST_AUDIENCE)
          .setExpirationTime('5m')
          .sign(privateKey);
      },
    ],
    ['without a subject', async () => idp.forge({}, Math.floor(Date.now() / 1000) + 300)],
    ['an agent key', async () => 'krt_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('refuses a token %s', async (_case, token) => {
    const res = await listWorkspaces(bearer(await token())).expect(401);
    expect(res.body).toEqual({ error: { message: expect.any(String), code: 'invalid_identity_token', hint: expect.any(String) } });
  });

  it('uses IDENTITY_JWKS_URL instead of discovery when set, and reports a provider it cannot reach as 503', async () => {
    const direct = await startControlTestApp('identity_jwks', { ...idp.env, IDENTITY_JWKS_URL: `${idp.issuer}/jwks` });
    const broken = await startControlTestApp('identity_down', { ...idp.env, IDENTITY_JWKS_URL: 'http://127.0.0.1:9/jwks' });
    try {
      const token = await idp.token('alice');
      await request(direct.app.getHttpServer()).get('/control/v1/workspaces').set(bearer(token)).expect(200);
      const res = await request(broken.app.getHttpServer()).get('/control/v1/workspaces').set(bearer(token)).expect(503);
      expect(res.body.error.code).toBe('identity_unavailable');
    } finally {
      await Promise.all([direct.close(), broken.close()]);
    }
  });
});
