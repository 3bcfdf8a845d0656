import { Injectable } from '@nestjs/common';
import { errors as joseErrors, jwtVerify, type JWTVerifyResult, SignJWT } from 'jose';
import { KEY_PURPOSES, randomUuid } from '@bursar/crypto';
import { Mode, MODES } from '../common/mode';
import { LedgerSettings } from '../config/ledger.settings';
import { OauthClientEntity } from '../oauth-clients/oauth-client.entity';
import { ClientScope, isClientScope } from '../oauth-clients/oauth-scopes';

export const ACCESS_TOKEN_ALGORITHM = 'HS256';
const ACCESS_TOKEN_TYPE = 'at+jwt';

/** What a verified access token says about its bearer. */
export interface AccessGrant {
  clientId: string;
  organizationId: string;
  mode: Mode;
  scopes: ClientScope[];
  /** Set when the client is pinned to one ledger. */
  ledgerId: string | null;
  issuedAt: Date;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

/**
 * HS256 access tokens (RFC 9068 layout). The key is derived from LEDGER_SECRET_KEY with HKDF under
 * a purpose label, so the same secret never keys two different algorithms, and every replica
 * derives the same key without storing one more secret. Tokens signed under a key listed in
 * LEDGER_PREVIOUS_SECRET_KEYS still verify, so a key rotation logs no client out.
 */
/** Most verified tokens remembered before the cache starts over. */
const VERIFIED_MAX = 10_000;

@Injectable()
export class AccessTokenService {
  /** Signing key first, then the previous keys' (verification only). */
  private readonly keys: Uint8Array[];
  /**
   * Grants of tokens already verified, by token, until the token expires: a token's validity
   * depends only on its signature and its expiry (nothing revokes one early), so every request of
   * a client need not check the signature again.
   */
  private readonly verified = new Map<string, { grant: AccessGrant; expiresAt: number }>();

  constructor(private readonly settings: LedgerSettings) {
    this.keys = settings.rootKeys.subkeys(KEY_PURPOSES.accessTokens).map((key) => new Uint8Array(key));
  }

  async issue(client: OauthClientEntity, scopes: ClientScope[], now: Date): Promise<IssuedToken> {
    const expiresIn = this.settings.LEDGER_ACCESS_TOKEN_TTL_SECONDS;
    const issuedAt = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({
      client_id: client.id,
      scope: scopes.join(' '),
      mode: client.mode,
      // The reference's revisions name the tenant claim differently; clients may read either.
      tenant_id: client.organizationId,
      workspace_id: client.organizationId,
      ...(client.ledgerId && { ledger_id: client.ledgerId }),
    })
      .setProtectedHeader({ alg: ACCESS_TOKEN_ALGORITHM, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(this.settings.publicUrl)
      .setSubject(client.id)
      .setJti(randomUuid())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + expiresIn)
      .sign(this.keys[0]);
    return { token, expiresIn };
  }

  /** The grant a token carries, or null when it is not one of ours or no longer valid. */
  async verify(token: string): Promise<AccessGrant | null> {
    const known = this.verified.get(token);
    if (known && known.expiresAt > Date.now()) return known.grant;
    const grant = await this.check(token);
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    if (grant) this.verified.set(token, grant);
    return grant?.grant ?? null;
  }

  private async check(token: string): Promise<{ grant: AccessGrant; expiresAt: number } | null> {
    try {
      const { payload } = await this.verifyWithAnyKey(token);
      const { sub, iat, exp, mode, scope, tenant_id: tenantId, ledger_id: ledgerId } = payload;
      if (typeof mode !== 'string' || !(MODES as readonly string[]).includes(mode)) return null;
      if (typeof scope !== 'string' || typeof tenantId !== 'string' || typeof sub !== 'string') return null;
      // Shared by every request presenting the token, so nobody may change it.
      const grant: AccessGrant = Object.freeze({
        clientId: sub,
        organizationId: tenantId,
        mode: mode as Mode,
        scopes: Object.freeze(scope.split(' ').filter(isClientScope)) as ClientScope[],
        ledgerId: typeof ledgerId === 'string' ? ledgerId : null,
        issuedAt: new Date((iat ?? 0) * 1000),
      });
      return { grant, expiresAt: (exp ?? 0) * 1000 };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
  }

  private async verifyWithAnyKey(token: string): Promise<JWTVerifyResult> {
    for (let i = 0; ; i++) {
      try {
        return await jwtVerify(token, this.keys[i], {
          algorithms: [ACCESS_TOKEN_ALGORITHM],
          issuer: this.settings.publicUrl,
          typ: ACCESS_TOKEN_TYPE,
          requiredClaims: ['sub', 'iat', 'exp', 'mode', 'scope', 'tenant_id'],
        });
      } catch (err) {
        // Only a signature mismatch can mean another key; expiry or bad claims fail the same under all.
        if (!(err instanceof joseErrors.JWSSignatureVerificationFailed) || i + 1 >= this.keys.length) throw err;
      }
    }
  }
}
