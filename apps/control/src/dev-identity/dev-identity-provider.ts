import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type AdapterPayload } from 'oidc-provider';
import { memoryAdapter } from './memory-adapter';

export interface DevIdentityOptions {
  issuer: string;
  /** Shared client secret: knowing it is what lets someone act as any development person. */
  secret: string;
  audience: string;
  /** Where the console may be sent back after sign-in (its authorization-code redirect URIs). */
  consoleRedirectUris?: string[];
  /** Lifetime of authorization-code access tokens (default 900 s). */
  accessTokenTtlSeconds?: number;
}

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The console's client id: a public client (no secret) that signs people in with code + PKCE. */
export const CONSOLE_CLIENT_ID = 'bursar-console';

/** Names usable as a person: an email address or a plain handle. */
export const PERSON = /^[A-Za-z0-9][A-Za-z0-9._+@-]{0,99}$/;

/**
 * A real OIDC provider (the oidc-provider library) for local development. Every person is a
 * confidential client of its own, made up on first use: `client_credentials` with the person's name
 * as client id and the shared secret yields a JWT access token whose `sub` is that name (and whose
 * `email` is the name when it looks like an address). The console signs people in with the
 * authorization-code flow (PKCE required) through the sign-in form in dev-identity-sign-in.ts; the
 * person is then whoever they typed, so both flows yield the same `sub` for the same name.
 */
export async function createDevIdentityProvider(options: DevIdentityOptions): Promise<Provider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'dev-identity', alg: 'RS256', use: 'sig' };
  const consoleClient: AdapterPayload = {
    client_id: CONSOLE_CLIENT_ID,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: options.consoleRedirectUris ?? [],
  };
  const person = (id: string): AdapterPayload | undefined =>
    id === CONSOLE_CLIENT_ID
      ? consoleClient
      : PERSON.test(id)
      ? { client_id: id, client_secret: options.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }
      : undefined;

  return new Provider(options.issuer, {
    adapter: memoryAdapter(person),
    jwks: { keys: [signingKey] },
    ttl: { ClientCredentials: 3600, AccessToken: options.accessTokenTtlSeconds ?? 900, RefreshToken: 8 * 3600, IdToken: 900, Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600 },
    scopes: ['openid', 'email', 'offline_access', 'control'],
    extraTokenClaims: (_ctx, token) => {
      const t = token as { accountId?: string; clientId?: string };
      const sub = t.accountId ?? t.clientId ?? '';
      return sub.includes('@') ? { email: sub } : {};
    },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...(id.includes('@') ? { email: id } : {}) }) }),
    // The console always gets a refresh token, so it can renew its access token before expiry.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Sign-in failed</title><h1>Sign-in failed</h1><p>${escapeHtml(
        `${out.error}: ${out.error_description ?? ''}`,
      )}</p><p>Start again from the console.</p>`;
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
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
