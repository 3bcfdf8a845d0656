import { hmacSha256Hex, timingSafeEqualString } from './digest';

/*
 * Webhook signature header, byte-compatible with Stripe's scheme:
 *   t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]
 * The secret is used as-is (UTF-8, including any `whsec_` prefix), as Stripe does.
 */

const SIGNATURE_SCHEME = 'v1';
const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureVerification =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' };

export interface VerifySignatureOptions {
  /** Maximum allowed |now - t|, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time in unix seconds; defaults to the system clock. */
  now?: number;
}

function computeSignature(payload: string | Buffer, secret: string, timestamp: number): string {
  // Sign the raw bytes rather than a decoded string so non-UTF-8 bodies verify exactly.
  return hmacSha256Hex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(payload)]));
}

function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** Header value with one `v1=` entry per secret, in order, so receivers can rotate secrets. */
export function signPayload(
  payload: string | Buffer,
  secrets: string[] | string,
  timestamp = unixNow(),
): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new Error('signPayload needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error(`signPayload timestamp must be a non-negative integer, got ${timestamp}`);
  }
  const signatures = list.map((secret) => `${SIGNATURE_SCHEME}=${computeSignature(payload, secret, timestamp)}`);
  return [`t=${timestamp}`, ...signatures].join(',');
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq === -1) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      // A second `t` would make it ambiguous which timestamp was signed.
      if (timestamp !== null || !/^\d+$/.test(value)) return null;
      timestamp = Number(value);
      if (!Number.isSafeInteger(timestamp)) return null;
    } else if (key === SIGNATURE_SCHEME) {
      signatures.push(value.toLowerCase());
    }
    // Other schemes (e.g. Stripe's test-mode `v0`) are ignored, as Stripe does.
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/**
 * Verifies a signature header against one secret. The signature is checked before the
 * timestamp so an unauthenticated caller learns nothing about the tolerance window.
 */
export function verifySignatureHeader(
  payload: string | Buffer,
  header: string,
  secret: string,
  opts: VerifySignatureOptions = {},
): SignatureVerification {
  const parsed = typeof header === 'string' ? parseHeader(header) : null;
  if (!parsed) return { ok: false, reason: 'malformed_header' };

  const expected = computeSignature(payload, secret, parsed.timestamp);
  // Compare against every entry without short-circuiting, to keep timing independent of position.
  let matched = false;
  for (const candidate of parsed.signatures) {
    matched = timingSafeEqualString(expected, candidate) || matched;
  }
  if (!matched) return { ok: false, reason: 'no_matching_signature' };

  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.now ?? unixNow();
  if (Math.abs(now - parsed.timestamp) > tolerance) {
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  }
  return { ok: true, timestamp: parsed.timestamp };
}
