import { sign, verify, type KeyObject } from 'node:crypto';

/*
 * Compact ES256 JWS with node:crypto's sign and verify: the same tokens jose makes and checks
 * (RFC 7515, signature as R || S), without WebCrypto's per-call promise and job overhead, which
 * dominated the cost of cosigning and verifying. A verification (about 70 us of P-256 work) runs on
 * libuv's thread pool (node:crypto's callback form), where the event loop only hands it over. A
 * signature (about 33 us) is made inline: handing each one over wakes a pool thread and then the
 * loop again, which on the 2-core machine of docs/benchmarks.md, busy with Postgres, cost more
 * service CPU per authorization than the signature itself (interleaved runs, "Control" there).
 */

const SIGNATURE = { dsaEncoding: 'ieee-p1363' } as const;
const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Encoded headers by kid and typ: a signer uses one or two keys, and the header never changes. */
const encodedHeaders = new Map<string, string>();
const ENCODED_HEADERS = 64;

function encodedHeader(header: { kid: string; typ: string }): string {
  const cacheKey = `${header.kid}\n${header.typ}`;
  let encoded = encodedHeaders.get(cacheKey);
  if (encoded === undefined) {
    if (encodedHeaders.size >= ENCODED_HEADERS) encodedHeaders.clear();
    encoded = b64url({ alg: 'ES256', ...header });
    encodedHeaders.set(cacheKey, encoded);
  }
  return encoded;
}

/** The signature is made per call (every token differs); only the header's encoding is reused. */
export function signEs256(header: { kid: string; typ: string }, payload: object, key: KeyObject): Promise<string> {
  const input = `${encodedHeader(header)}.${b64url(payload)}`;
  try {
    return Promise.resolve(`${input}.${sign('sha256', Buffer.from(input), { key, ...SIGNATURE }).toString('base64url')}`);
  } catch (e) {
    return Promise.reject(e);
  }
}

function verified(input: string, key: KeyObject, signature: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => verify('sha256', Buffer.from(input), { key, ...SIGNATURE }, signature, (err, ok) => (err ? reject(err) : resolve(ok))));
}

export type Es256Check = { header: Record<string, unknown>; payload: unknown } | 'malformed' | 'unknown_key' | 'bad_signature';

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and checks the signature; `keyFor` finds the key of the header's `kid`. Claims are the caller's. */
export async function verifyEs256(token: string, keyFor: (kid: string) => Promise<KeyObject | undefined>): Promise<Es256Check> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[\w-]*$/.test(p))) return 'malformed';
  const header = decodeJson(parts[0]);
  // A critical extension we do not implement must be refused (RFC 7515 s.4.1.11); we never issue one.
  if (!isObject(header) || header.alg !== 'ES256' || typeof header.kid !== 'string' || header.crit !== undefined) return 'malformed';
  const key = await keyFor(header.kid);
  if (!key) return 'unknown_key';
  if (!(await verified(`${parts[0]}.${parts[1]}`, key, Buffer.from(parts[2], 'base64url')))) return 'bad_signature';
  const payload = decodeJson(parts[1]);
  return payload === undefined ? 'malformed' : { header, payload };
}
