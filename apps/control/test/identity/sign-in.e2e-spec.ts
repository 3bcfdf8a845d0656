import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer, createWorkspace } from '../control-fixtures';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

/**
 * Stand-in for the identity provider's password API (a third-party service): it answers by the
 * email or code it is sent, the way a WorkOS-style authenticate endpoint does.
 */
function startSignInProvider(): Promise<{ url: string; seen: Record<string, unknown>[]; server: Server }> {
  const seen: Record<string, unknown>[] = [];
  const readJson = async (req: IncomingMessage) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    return JSON.parse(raw) as Record<string, string>;
  };
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    seen.push(body);
    const reply = (status: number, json: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    const tokens = { access_token: 'at_1', refresh_token: 'rt_1', user: { id: 'user_1', email: 'ok@example.com' } };
    if (body.email === 'boom@example.com') return reply(502, {});
    if (body.grant_type === 'refresh_token') return body.refresh_token === 'rt_1' ? reply(200, tokens) : reply(400, { code: 'invalid_grant' });
    if (body.grant_type?.endsWith('mfa-totp') || body.grant_type?.endsWith('email-verification:code')) {
      return body.code === '123456' ? reply(200, tokens) : reply(400, { code: 'invalid_one_time_code' });
    }
    if (body.email === 'ok@example.com' && body.password === 'right') return reply(200, tokens);
    if (body.email === 'mfa@example.com') {
      return reply(403, { code: 'mfa_challenge', pending_authentication_token: 'pat_mfa', authentication_challenge: { id: 'auth_challenge_1' } });
    }
    if (body.email === 'new@example.com') return reply(403, { code: 'email_verification_required', pending_authentication_token: 'pat_email' });
    return reply(400, { code: 'invalid_credentials' });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })),
  );
}

describe('sign-in routes and the account', () => {
  let idp: TestIdentityProvider;
  let upstream: Awaited<ReturnType<typeof startSignInProvider>>;
  let t: ControlTestApp;
  let bare: ControlTestApp;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['pat']);
    upstream = await startSignInProvider();
    t = await startControlTestApp('sign_in', {
      ...idp.env,
      IDENTITY_SIGNIN_URL: upstream.url,
      IDENTITY_SIGNIN_CLIENT_ID: 'client_1',
      IDENTITY_SIGNIN_API_KEY: 'sk_test_1',
    });
    bare = await startControlTestApp('sign_in_bare');
  });
  afterAll(async () => {
    await Promise.all([t.close(), bare.close()]);
    await new Promise((r) => upstream.server.close(r));
    await idp.close();
  });

  const http = () => request(t.app.getHttpServer());

  it('signs in with email and password, relaying the provider’s tokens', async () => {
    const res = await http().post('/v1/auth/signin').send({ email: 'ok@example.com', password: 'right' }).expect(200);
    expect(res.body).toEqual({ data: { access_token: 'at_1', refresh_token: 'rt_1', user: { id: 'user_1', email: 'ok@example.com' } } });
    expect(upstream.seen.at(-1)).toEqual({ client_id: 'client_1', client_secret: 'sk_test_1', grant_type: 'password', email: 'ok@example.com', password: 'right' });
    await http().post('/v1/auth/refresh').send({ refresh_token: 'rt_1' }).expect(200);
    expect((await http().post('/v1/auth/refresh').send({ refresh_token: 'stale' }).expect(401)).body.error.code).toBeNull();
  });

  it('asks for a second factor with 401 mfa_required, then completes at verify_mfa', async () => {
    const res = await http().post('/v1/auth/signin').send({ email: 'mfa@example.com', password: 'x' }).expect(401);
    expect(res.body.error).toEqual({
      message: expect.any(String),
      code: 'mfa_required',
      hint: expect.any(String),
      pending_authentication_token: 'pat_mfa',
      authentication_challenge_id: 'auth_challenge_1',
    });
    const done = await http()
      .post('/v1/auth/verify_mfa')
      .send({ pending_authentication_token: 'pat_mfa', authentication_challenge_id: 'auth_challenge_1', code: '123456' })
      .expect(200);
    expect(done.body.data.access_token).toBe('at_1');
    await http().post('/v1/auth/verify_mfa').send({ pending_authentication_token: 'pat_mfa', authentication_challenge_id: 'a', code: '000000' }).expect(401);
  });

  it('asks for email verification with 401 email_verification_required, then completes at verify_email', async () => {
    const res = await http().post('/v1/auth/signin').send({ email: 'new@example.com', password: 'x' }).expect(401);
    expect(res.body.error).toEqual({ message: expect.any(String), code: 'email_verification_required', hint: expect.any(String), pending_authentication_token: 'pat_email' });
    await http().post('/v1/auth/verify_email').send({ pending_authentication_token: 'pat_email', code: '123456' }).expect(200);
  });

  it('refuses wrong credentials (401, no code) and bad bodies (422 wrong value, 400 missing field)', async () => {
    expect((await http().post('/v1/auth/signin').send({ email: 'ok@example.com', password: 'wrong' }).expect(401)).body.error.code).toBeNull();
    await http().post('/v1/auth/signin').send({ email: 'not-an-email', password: 'x' }).expect(422);
    await http().post('/v1/auth/verify_mfa').send({ pending_authentication_token: 'p' }).expect(400);
  });

  it('answers 503 identity_unavailable when the provider fails, and identity_not_configured when there is none', async () => {
    const res = await http().post('/v1/auth/signin').send({ email: 'boom@example.com', password: 'x' }).expect(503);
    expect(res.body.error.code).toBe('identity_unavailable');
    const none = await request(bare.app.getHttpServer()).post('/v1/auth/signin').send({ email: 'ok@example.com', password: 'right' }).expect(503);
    expect(none.body.error.code).toBe('identity_not_configured');
    const ws = await request(bare.app.getHttpServer()).get('/control/v1/workspaces').set(bearer('eyJ.x.y')).expect(503);
    expect(ws.body.error.code).toBe('identity_not_configured');
  });

  it('shows the signed-in person their account and workspaces', async () => {
    const token = await idp.token('pat');
    await createWorkspace(t.app, token, { name: 'Mine', slug: 'mine' });
    const res = await http().get('/v1/account').set(bearer(token)).expect(200);
    expect(res.body.data).toEqual({ sub: 'pat', email: null, workspaces: [expect.objectContaining({ slug: 'mine', role: 'owner' })] });
    expect((await http().get('/v1/account').expect(401)).body.error.code).toBe('identity_token_required');
    expect((await http().get('/v1/account').set(bearer('nonsense')).expect(401)).body.error.code).toBe('invalid_identity_token');
  });
});
