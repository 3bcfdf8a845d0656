import { createHash, hkdfSync } from 'node:crypto';
import { aesGcmOpen, aesGcmSeal, SecretBox } from './secret-box';
import { pooledRandomBytes } from './random';

/**
 * HKDF info strings, one per use of a service's root key (`*_SECRET_KEY`): a subkey never keys two
 * algorithms or two kinds of value. The token, cursor and export-link labels predate the sealed-row
 * one and are kept as they were so tokens and cursors issued before this change stay valid.
 */
export const KEY_PURPOSES = {
  sealedRows: 'bursar/sealed-rows/v1',
  accessTokens: 'bursar-ledger access-token hs256',
  cursors: 'bursar-ledger list cursor',
  exportLinks: 'bursar-ledger export link',
} as const;

const KEY_BYTES = 32;
const SEALED_VERSION = 'v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte subkey of `root` for one purpose (HKDF-SHA256, empty salt). */
export function deriveSubkey(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), purpose, KEY_BYTES));
}

/** Short public name of a root key: the first 8 base64url characters of its SHA-256 digest. */
export function rootKeyId(root: Buffer): string {
  return createHash('sha256').update(root).digest('base64url').slice(0, 8);
}

function decodeRoot(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`root key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return key;
}

/** Splits a comma list of base64 keys (a `*_PREVIOUS_SECRET_KEYS` setting). */
export function parseKeyList(list: string | undefined): string[] {
  return (list ?? '').split(',').map((k) => k.trim()).filter(Boolean);
}

/**
 * The current root key of a service and the previous ones still accepted during a rotation.
 * New values are sealed and new tokens signed under the current key; values and tokens made under
 * a previous key still open and verify until they are re-sealed or expire.
 */
export class RootKeys {
  readonly current: Buffer;
  readonly previous: Buffer[];

  constructor(current: string, previous: string[] = []) {
    this.current = decodeRoot(current);
    const currentId = rootKeyId(this.current);
    this.previous = previous.map(decodeRoot).filter((k) => rootKeyId(k) !== currentId);
  }

  static fromSettings(current: string, previousList?: string): RootKeys {
    return new RootKeys(current, parseKeyList(previousList));
  }

  get currentId(): string {
    return rootKeyId(this.current);
  }

  /** The subkeys of `purpose`, the current key's first: sign with [0], verify with any. */
  subkeys(purpose: string): Buffer[] {
    return [this.current, ...this.previous].map((root) => deriveSubkey(root, purpose));
  }

  /** The box for sealed rows: seals `v2.<kid>.…` under the current key, opens every known kid and the legacy format. */
  sealedRows(): SecretBox {
    return new RootKeyBox(this);
  }
}

/**
 * Sealed values are `v2.<kid>.<iv>.<ciphertext>.<tag>` (base64url), keyed by the sealed-row subkey
 * of the root key named by kid. Values without the kid (`v1.…`) are the legacy format, sealed with a
 * root key used raw; they still open, with the current or a previous root key.
 */
class RootKeyBox extends SecretBox {
  private readonly sealKid: string;
  private readonly sealKey: Buffer;
  private readonly byKid = new Map<string, Buffer>();
  private readonly legacy: SecretBox[];

  constructor(keys: RootKeys) {
    super(keys.current);
    for (const root of [keys.current, ...keys.previous]) this.byKid.set(rootKeyId(root), deriveSubkey(root, KEY_PURPOSES.sealedRows));
    this.sealKid = keys.currentId;
    this.sealKey = this.byKid.get(this.sealKid) as Buffer;
    this.legacy = keys.previous.map((root) => new SecretBox(root));
  }

  override encrypt(plaintext: string, aad?: string): string {
    const iv = pooledRandomBytes(IV_BYTES);
    const { ciphertext, tag } = aesGcmSeal(this.sealKey, iv, Buffer.from(plaintext, 'utf8'), aadBytes(aad));
    return [SEALED_VERSION, this.sealKid, iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
  }

  override decrypt(token: string, aad?: string): string {
    if (typeof token === 'string' && token.startsWith(`${SEALED_VERSION}.`)) return this.openKeyed(token, aad);
    try {
      return super.decrypt(token, aad);
    } catch (error) {
      for (const box of this.legacy) {
        try {
          return box.decrypt(token, aad);
        } catch {
          // try the next previous key
        }
      }
      throw error;
    }
  }

  private openKeyed(token: string, aad?: string): string {
    const parts = token.split('.');
    const key = parts.length === 5 ? this.byKid.get(parts[1]) : undefined;
    const iv = parts.length === 5 ? decode(parts[2], IV_BYTES) : null;
    const ciphertext = parts.length === 5 ? decode(parts[3]) : null;
    const tag = parts.length === 5 ? decode(parts[4], TAG_BYTES) : null;
    if (!iv || !ciphertext || !tag) throw new Error('SecretBox: malformed token (expected v2.<kid>.<iv>.<ciphertext>.<tag>)');
    if (!key) throw new Error(`SecretBox: no configured key has id ${parts[1]}`);
    try {
      return aesGcmOpen(key, iv, ciphertext, tag, aadBytes(aad)).toString('utf8');
    } catch (cause) {
      throw new Error('SecretBox: decryption failed (wrong key, wrong aad, or tampered token)', { cause });
    }
  }
}

/** The kid of a `v2` sealed value, or null for the legacy format (and anything else). */
export function sealedKeyId(token: string): string | null {
  const parts = typeof token === 'string' ? token.split('.') : [];
  return parts.length === 5 && parts[0] === SEALED_VERSION ? parts[1] : null;
}

function aadBytes(aad: string | undefined): Buffer | undefined {
  return aad === undefined ? undefined : Buffer.from(aad, 'utf8');
}

function decode(part: string, bytes?: number): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return null;
  const value = Buffer.from(part, 'base64url');
  return bytes !== undefined && value.length !== bytes ? null : value;
}
