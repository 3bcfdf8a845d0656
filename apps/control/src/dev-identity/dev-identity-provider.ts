import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type AdapterPayload } from 'oidc-provider';
import { memoryAdapter } from './memory-adapter';

export interface DevIdentityOptions {
  issuer: string;
  /** Shared client secret: knowing it is what lets someone act as any development person. */
  secret: string;
  audience: string;
}

/** Names usable as a person: an email address or a plain handle. */
const PERSON = /^[A-Za-z0-9][A-Za-z0-9._+@-]{0,99}$/;

/**
 * A real OIDC provider (the oidc-provider library) for local development. Every person is a
 * confidential client of its own, made up on first use: `client_credentials` with the person's name
 * as client id and the shared secret yields a JWT access token whose `sub` is that name (and whose
 * `email` is the name when it looks like an address).
 */
export async function createDevIdentityProvider(options: DevIdentityOptions): Promise<Provider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'dev-identity', alg: 'RS256', use: 'sig' };
  const person = (id: string): AdapterPayload | undefined =>
    PERSON.test(id)
      ? { client_id: id, client_secret: options.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }
      : undefined;

  return new Provider(options.issuer, {
    adapter: memoryAdapter(person),
    jwks: { keys: [signingKey] },
    ttl: { ClientCredentials: 3600 },
    extraTokenClaims: (_ctx, token) => {
      const sub = (token as { clientId?: string }).clientId ?? '';
      return sub.includes('@') ? { email: sub } : {};
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'control',
          audience: resource,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
}

/** The shell command that fetches a token for `person`, as printed for developers. */
export function tokenCommand(issuer: string, person: string, secret: string): string {
  return `curl -s -u '${person}:${secret}' -d grant_type=client_credentials -d scope=control ${issuer}/token | jq -r .access_token`;
}
