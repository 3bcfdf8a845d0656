import { Injectable } from '@nestjs/common';
import { createRemoteJWKSet, errors, JWTVerifyGetKey, jwtVerify } from 'jose';
import { ControlSettings } from '../config/control.settings';
import { IdentityErrors } from './identity.errors';

/** The person (or backend) behind a verified identity token. */
export interface Identity {
  sub: string;
  email: string | null;
}

interface DiscoveryDocument {
  issuer?: unknown;
  jwks_uri?: unknown;
}

/** Failures of the provider itself rather than of the token: the caller may retry. */
const PROVIDER_FAILURES = [errors.JWKSTimeout, errors.JWKSInvalid];

/**
 * Verifies identity tokens against the configured issuer's key set. The key set URL comes from
 * settings or, once, from the issuer's discovery document; jose caches the keys and refetches
 * them when a token names a kid it has not seen.
 */
@Injectable()
export class IdentityTokenVerifier {
  private keySet?: Promise<JWTVerifyGetKey>;

  constructor(private readonly settings: ControlSettings) {}

  async verify(token: string): Promise<Identity> {
    const issuer = this.settings.IDENTITY_ISSUER;
    if (!issuer) throw IdentityErrors.error('identity_not_configured');
    const keys = await this.keys(issuer);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: this.settings.IDENTITY_AUDIENCE,
        requiredClaims: ['sub', 'exp'],
      });
      return { sub: payload.sub as string, email: typeof payload.email === 'string' ? payload.email : null };
    } catch (e) {
      if (PROVIDER_FAILURES.some((kind) => e instanceof kind) || !(e instanceof errors.JOSEError)) {
        throw IdentityErrors.error('identity_unavailable');
      }
      throw IdentityErrors.error('invalid_identity_token');
    }
  }

  private keys(issuer: string): Promise<JWTVerifyGetKey> {
    this.keySet ??= this.resolveJwksUrl(issuer).then(
      (url) => createRemoteJWKSet(new URL(url)),
      (e: unknown) => {
        // Forget the failure so the next request tries the provider again.
        this.keySet = undefined;
        throw e;
      },
    );
    return this.keySet;
  }

  private async resolveJwksUrl(issuer: string): Promise<string> {
    if (this.settings.IDENTITY_JWKS_URL) return this.settings.IDENTITY_JWKS_URL;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const doc = await fetch(url, { signal: AbortSignal.timeout(5000) })
      .then((res) => (res.ok ? (res.json() as Promise<DiscoveryDocument>) : undefined))
      .catch(() => undefined);
    if (typeof doc?.jwks_uri !== 'string' || doc.issuer !== issuer) throw IdentityErrors.error('identity_unavailable');
    return doc.jwks_uri;
  }
}
