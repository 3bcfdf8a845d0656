import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { memoryAdapter } from '../src/dev-identity/memory-adapter';

/** Audience the control service is configured to expect in these tests. */
export const TEST_AUDIENCE = 'https://control.bursar.test';

export interface TestIdentityProvider {
  issuer: string;
  /** Settings that make the control service trust this provider (discovery finds the JWKS). */
  env: Record<string, string>;
  /**
   * An access token for `sub` from the provider's token endpoint. Each person is a confidential
   * client of its own using client_credentials, which yields a JWT whose `sub` is the client id.
   */
  token(sub: string, audience?: string): Promise<string>;
  /** A token signed with the provider's own key but carrying arbitrary claims (expired ones, say). */
  forge(claims: Record<string, unknown>, expiresAt: number): Promise<string>;
  close(): Promise<void>;
}

const CLIENT_SECRET = 'test-client-secret-with-enough-length';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A real OIDC provider (the oidc-provider package) on a loopback port, issuing JWT access tokens. */
export async function startTestIdentityProvider(subjects: string[]): Promise<TestIdentityProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-idp-key', alg: 'RS256', use: 'sig' };

  const server = createServer();
  const issuer = `http://127.0.0.1:${await listen(server)}`;
  const provider = new Provider(issuer, {
    clients: subjects.map((sub) => ({
      client_id: sub,
      client_secret: CLIENT_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
    })),
    adapter: memoryAdapter(),
    jwks: { keys: [signingJwk] },
    ttl: { ClientCredentials: 600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => TEST_AUDIENCE,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'control',
          audience: resource,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    env: { IDENTITY_ISSUER: issuer, IDENTITY_AUDIENCE: TEST_AUDIENCE },
    async token(sub, audience = TEST_AUDIENCE) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${sub}:${CLIENT_SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'control', resource: audience }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`token endpoint refused ${sub}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    forge(claims, expiresAt) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(TEST_AUDIENCE)
        .setIssuedAt(expiresAt - 600)
        .setExpirationTime(expiresAt)
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
