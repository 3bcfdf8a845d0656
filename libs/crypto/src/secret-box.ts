import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { pooledRandomBytes } from './random';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export interface AesGcmSealed {
  ciphertext: Buffer;
  tag: Buffer;
}

/** Raw AES-256-GCM encryption; the caller owns IV uniqueness (SecretBox uses a random IV). */
export function aesGcmSeal(key: Buffer, iv: Buffer, plaintext: Buffer, aad?: Buffer): AesGcmSealed {
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  if (aad) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, tag: cipher.getAuthTag() };
}

/** Raw AES-256-GCM decryption; throws if the tag does not authenticate. */
export function aesGcmOpen(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad?: Buffer): Buffer {
  // Pinning authTagLength makes Node reject truncated tags instead of accepting them.
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad) decipher.setAAD(aad);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

function decodePart(part: string, expectedBytes?: number): Buffer | null {
  // Buffer.from(..., 'base64url') silently skips invalid characters, so validate first.
  if (!BASE64URL.test(part)) return null;
  const bytes = Buffer.from(part, 'base64url');
  if (expectedBytes !== undefined && bytes.length !== expectedBytes) return null;
  return bytes;
}

function toAad(aad: string | undefined): Buffer | undefined {
  return aad === undefined ? undefined : Buffer.from(aad, 'utf8');
}

function parseToken(token: string): { iv: Buffer; ciphertext: Buffer; tag: Buffer } | null {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 4 || parts[0] !== TOKEN_VERSION) return null;
  const iv = decodePart(parts[1], IV_BYTES);
  const ciphertext = decodePart(parts[2]);
  const tag = decodePart(parts[3], TAG_BYTES);
  return iv && ciphertext && tag ? { iv, ciphertext, tag } : null;
}

/**
 * Encrypts secrets at rest as `v1.<iv>.<ciphertext>.<tag>` (base64url parts).
 * The optional AAD binds a token to its context (e.g. a row id) so it cannot be moved
 * to another record; note that GCM treats an empty AAD the same as none.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
      const length = Buffer.isBuffer(key) ? key.length : typeof key;
      throw new Error(`SecretBox key must be ${KEY_BYTES} bytes, got ${length}`);
    }
    // Copy so later mutation of the caller's buffer cannot change the key.
    this.key = Buffer.from(key);
  }

  static fromBase64(key: string): SecretBox {
    return new SecretBox(Buffer.from(key, 'base64'));
  }

  encrypt(plaintext: string, aad?: string): string {
    const iv = pooledRandomBytes(IV_BYTES);
    const { ciphertext, tag } = aesGcmSeal(this.key, iv, Buffer.from(plaintext, 'utf8'), toAad(aad));
    return [TOKEN_VERSION, iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
  }

  decrypt(token: string, aad?: string): string {
    const parsed = parseToken(token);
    if (!parsed) {
      throw new Error(`SecretBox: malformed token (expected ${TOKEN_VERSION}.<iv>.<ciphertext>.<tag>)`);
    }
    const { iv, ciphertext, tag } = parsed;
    try {
      return aesGcmOpen(this.key, iv, ciphertext, tag, toAad(aad)).toString('utf8');
    } catch (cause) {
      throw new Error('SecretBox: decryption failed (wrong key, wrong aad, or tampered token)', { cause });
    }
  }
}

/** New random SecretBox key, base64-encoded for configuration. */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
