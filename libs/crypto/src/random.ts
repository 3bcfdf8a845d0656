import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function assertByteCount(bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < 1) {
    throw new Error(`byte count must be a positive integer, got ${bytes}`);
  }
}

/**
 * Base62 of the whole byte string read as one big integer: every random bit is kept
 * (no modulo bias, no rejection loop), and the output is left-padded with '0' to the
 * fixed width that can hold 2^(8 * bytes.length), so ids of one size all look alike.
 */
function base62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  const limit = 1n << BigInt(bytes.length * 8);
  let out = '';
  for (let capacity = 1n; capacity < limit; capacity *= 62n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

/** URL-safe opaque token (API keys, nonces); `bytes` of entropy. */
export function randomToken(bytes = 32): string {
  assertByteCount(bytes);
  return randomBytes(bytes).toString('base64url');
}

/** Prefixed public identifier such as `acct_3xK9...`; only [A-Za-z0-9] after the underscore. */
export function randomId(prefix: string, bytes = 16): string {
  if (!prefix) throw new Error('randomId prefix must be a non-empty string');
  assertByteCount(bytes);
  return `${prefix}_${base62(randomBytes(bytes))}`;
}

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * `size` bytes from the CSPRNG, drawn in 4 KiB blocks: one randomBytes call serves many small
 * draws on hot paths (request ids, cipher IVs). Each byte is handed out once; a spent block is
 * dropped, never refilled, so earlier draws never change.
 */
export function pooledRandomBytes(size: number): Buffer {
  assertByteCount(size);
  if (size > POOL_BYTES) return randomBytes(size);
  if (poolOffset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

export function randomUuid(): string {
  return randomUUID();
}
