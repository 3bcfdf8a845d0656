import { sha256Hex } from '@bursar/crypto';

/**
 * JSON with object keys sorted at every level and no whitespace: the byte string `policy_version`
 * and `frame_hash` digest, so any client can recompute them with a few lines of code.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export function canonicalDigest(prefix: string, value: unknown): string {
  return prefix + sha256Hex(canonicalJson(value));
}
