import * as oauth from 'oauth4webapi';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { booksStack } from '../books-api';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('OAuth token endpoint and metadata', () => {
  // oauth4webapi checks the issuer it is given against the metadata, so the app listens where it says it does.
  const stack = booksStack('oauth', { listen: true, env: { LEDGER_ACCESS_TOKEN_TTL_SECONDS: '900' } });
  const issuer = () => String(stack.t.settings.LEDGER_PUBLIC_URL);

  const token = () => request(stack.t.app.getHttpServer()).post('/oauth/token').type('form');

  it('works with a real OAuth client: discovery (oauth2 algorithm), then client_credentials with Basic and post', async () => {
    const options = { [oauth.allowInsecureRequests]: true };
    const discovery = await oauth.discoveryRequest(new URL(issuer()), { ...options, algorithm: 'oauth2' });
    const as = await oauth.processDiscoveryResponse(new URL(issuer()), discovery);
    expect(as.token_endpoint).toBe(`${issuer()}/oauth/token`);

    for (const auth of [oauth.ClientSecretBasic(stack.client.clientSecret), oauth.ClientSecretPost(stack.client.clientSecret)]) {
      const response = await oauth.clientCredentialsGrantRequest(
        as, { client_id: stack.client.clientId }, auth, { scope: 'ledger:read' }, options,
      );
      const result = await oauth.processClientCredentialsResponse(as, { client_id: stack.client.clientId }, response);
      expect(result).toMatchObject({ token_type: 'bearer', expires_in: 900, scope: 'ledger:read' });
    }
  });

  it('publishes RFC 8414 metadata naming only what is served', async () => {
    const res = await request(stack.t.app.getHttpServer()).get('/.well-known/oauth-authorization-server').expect(200);
    // No authorization endpoint (so no response types) and no JWT client authentication (so no client-auth signing algorithms; the token's own algorithm is an extension member).
    expect(res.body).toEqual({
      issuer: issuer(),
      token_endpoint: `${issuer()}/oauth/token`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: [],
      scopes_supported: expect.arrayContaining(['ledger:read', 'ledger:write', 'ledger:period_close', 'ledger:clients:read', 'ledger:clients:write']),
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      access_token_signing_alg_values_supported: ['HS256'],
      service_documentation: `${issuer()}/ledger/v1/openapi.json`,
    });
  });

  it('serves each advertised auth method and grantable scope (ledger:admin is listed as the reference does, granted to none), via oauth4webapi discovery', async () => {
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(new URL(issuer()), await oauth.discoveryRequest(new URL(issuer()), { ...options, algorithm: 'oauth2' }));
    expect(as).not.toHaveProperty('authorization_endpoint');
    expect(as).not.toHaveProperty('token_endpoint_auth_signing_alg_values_supported');
    const auths = { client_secret_basic: oauth.ClientSecretBasic, client_secret_post: oauth.ClientSecretPost } as const;
    const everyScope = await stack.fx.client({ scopes: ['ledger:read', 'ledger:write', 'ledger:period_close', 'ledger:clients:read', 'ledger:clients:write'] });
    for (const method of as.token_endpoint_auth_methods_supported ?? []) {
      const auth = auths[method as keyof typeof auths];
      expect(auth).toBeDefined();
      for (const scope of (as.scopes_supported ?? []).filter((s) => s !== 'ledger:admin')) {
        const response = await oauth.clientCredentialsGrantRequest(as, { client_id: everyScope.clientId }, auth(everyScope.clientSecret), { scope }, options);
        expect(await oauth.processClientCredentialsResponse(as, { client_id: everyScope.clientId }, response)).toMatchObject({ scope });
      }
    }
  });

  it('issues an HS256 token with the reference claims, all scopes by default, and no-store', async () => {
    const res = await token()
      .set('Authorization', basic(stack.client.clientId, stack.client.clientSecret))
      .send({ grant_type: 'client_credentials' })
      .expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'ledger:read ledger:write ledger:period_close',
    });
    expect(decodeProtectedHeader(res.body.access_token)).toMatchObject({ alg: 'HS256', typ: 'at+jwt' });
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({
      iss: issuer(),
      sub: stack.client.clientId,
      client_id: stack.client.clientId,
      mode: 'test',
      scope: 'ledger:read ledger:write ledger:period_close',
      tenant_id: stack.client.organizationId,
      workspace_id: stack.client.organizationId,
      ledger_id: stack.client.ledgerId,
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(900);

    const [row] = await stack.db.query('SELECT last_used_at FROM oauth_clients WHERE id = $1', [stack.client.clientId]);
    expect(row.last_used_at).not.toBeNull();
  });

  it('narrows to scopes asked by their short reference names', async () => {
    const res = await token()
      .set('Authorization', basic(stack.client.clientId, stack.client.clientSecret))
      .send({ grant_type: 'client_credentials', scope: 'read period_close' })
      .expect(200);
    expect(res.body.scope).toBe('ledger:read ledger:period_close');
  });

  it('URL-decodes both parts of HTTP Basic credentials', async () => {
    const encodedId = stack.client.clientId.replace('_', '%5F');
    await token()
      .set('Authorization', basic(encodedId, encodeURIComponent(stack.client.clientSecret)))
      .send({ grant_type: 'client_credentials' })
      .expect(200);
  });

  it.each([
    ['an unknown client', () => basic('client_nope', 'sk_test_x')],
    ['a wrong secret', () => basic(stack.client.clientId, 'sk_test_wrong')],
    ['no credentials', () => undefined],
    ['a non-Basic Authorization header', () => 'Bearer abc'],
    ['a Basic header without a colon', () => `Basic ${Buffer.from('justone').toString('base64')}`],
  ])('answers %s with 401 invalid_client and a Basic challenge', async (_label, header) => {
    const req = token();
    const authorization = header();
    if (authorization) req.set('Authorization', authorization);
    const res = await req.send({ grant_type: 'client_credentials' }).expect(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String), hint: expect.any(String) });
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses a disabled client with invalid_client', async () => {
    const disabled = await stack.fx.client();
    await stack.db.query('UPDATE oauth_clients SET disabled_at = now() WHERE id = $1', [disabled.clientId]);
    const res = await token()
      .send({ grant_type: 'client_credentials', client_id: disabled.clientId, client_secret: disabled.clientSecret })
      .expect(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it.each([
    [{ grant_type: 'authorization_code' }, 'unsupported_grant_type'],
    [{ grant_type: 'client_credentials', refresh_token: 'x' }, 'invalid_grant'],
    [{ grant_type: 'client_credentials', scope: 'ledger:read ledger:clients:write' }, 'invalid_scope'],
    [{ grant_type: 'client_credentials', scope: 'ledger:admin' }, 'invalid_scope'],
    [{}, 'invalid_request'],
    ['grant_type=client_credentials&grant_type=client_credentials', 'invalid_request'],
  ])('answers %j with 422 %s in an RFC 6749 body', async (body, error) => {
    const res = await token().set('Authorization', basic(stack.client.clientId, stack.client.clientSecret)).send(body).expect(422);
    expect(res.body).toMatchObject({ error, error_description: expect.any(String) });
    expect(res.body).not.toHaveProperty('request_id');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses credentials sent both as Basic and as form fields', async () => {
    const res = await token()
      .set('Authorization', basic(stack.client.clientId, stack.client.clientSecret))
      .send({ grant_type: 'client_credentials', client_id: stack.client.clientId, client_secret: stack.client.clientSecret })
      .expect(422);
    expect(res.body.error).toBe('invalid_request');
  });

  it.each([
    ['malformed JSON', 'json', '{"grant_type":'],
    ['an oversized form', 'form', `grant_type=client_credentials&pad=${'x'.repeat(2_000_000)}`],
  ])('answers %s with an RFC 6749 invalid_request body, not the ledger envelope', async (_, type, body) => {
    const res = await request(stack.t.app.getHttpServer()).post('/oauth/token').type(type).send(body).expect(422);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String), hint: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
