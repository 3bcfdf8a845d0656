import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';

export type { JWK, JWTPayload } from 'jose';

const ALG = 'ES256';

export interface Es256KeyPair {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export interface SignJwsOptions {
  issuer?: string;
  audience?: string;
  /** Lifetime in seconds from now; sets `exp`. */
  expiresIn?: number;
  /** JOSE `typ` header, e.g. `at+jwt`. */
  typ?: string;
}

export interface VerifyJwsOptions {
  issuer?: string;
  audience?: string;
  /** Clock override for `exp`/`nbf` checks. */
  currentDate?: Date;
}

/** New P-256 signing key; `kid` defaults to the RFC 7638 thumbprint so it is derived, not assigned. */
export async function generateEs256KeyPair(kid?: string): Promise<Es256KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const publicBase = await exportJWK(publicKey);
  const keyId = kid ?? (await calculateJwkThumbprint(publicBase, 'sha256'));
  const meta = { kid: keyId, alg: ALG, use: 'sig' };
  return {
    kid: keyId,
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...publicBase, ...meta },
  };
}

/** Compact ES256 JWT with `kid` (and `typ` when given) in the header and `iat` set. */
export async function signJws(
  payload: Record<string, unknown>,
  privateJwk: JWK,
  kid: string,
  opts: SignJwsOptions = {},
): Promise<string> {
  const key = await importJWK(privateJwk, ALG);
  const iat = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: ALG, kid, ...(opts.typ !== undefined && { typ: opts.typ }) })
    .setIssuedAt(iat);
  if (opts.issuer !== undefined) jwt.setIssuer(opts.issuer);
  if (opts.audience !== undefined) jwt.setAudience(opts.audience);
  if (opts.expiresIn !== undefined) jwt.setExpirationTime(iat + opts.expiresIn);
  return jwt.sign(key);
}

/**
 * Verifies an ES256 JWT against a JWKS (key picked by `kid`). Only ES256 is accepted, to
 * rule out algorithm confusion; jose errors propagate unchanged for callers to map.
 */
export async function verifyJws(
  token: string,
  jwks: { keys: JWK[] },
  opts: VerifyJwsOptions = {},
): Promise<{ payload: JWTPayload; kid: string }> {
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
    algorithms: [ALG],
    issuer: opts.issuer,
    audience: opts.audience,
    currentDate: opts.currentDate,
  });
  // Every token we issue carries a kid; one without it is not ours even if a lone JWKS key matched.
  if (!protectedHeader.kid) throw new errors.JWSInvalid('JWS Protected Header is missing "kid"');
  return { payload, kid: protectedHeader.kid };
}
