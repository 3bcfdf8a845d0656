import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const SECRET_DIGEST_PREFIX = 'sha256:';

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

export function hmacSha256Hex(key: string | Buffer, data: string | Buffer): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/**
 * Constant-time string equality. Both sides are hashed first so the comparison always
 * runs over 32 bytes: unequal lengths neither throw (as `timingSafeEqual` would) nor
 * leak the secret's length through an early exit.
 */
export function timingSafeEqualString(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/**
 * Storable digest of a high-entropy secret (API key, client secret). A plain SHA-256 is
 * enough because the inputs are random tokens, not user passwords; the prefix names the
 * algorithm so it can be changed later without ambiguity.
 */
export function digestSecret(secret: string): string {
  return SECRET_DIGEST_PREFIX + sha256Hex(secret);
}

export function verifySecret(secret: string, digest: string): boolean {
  return timingSafeEqualString(digestSecret(secret), digest);
}
