import canonicalize from 'canonicalize';
import { sha256Hex } from './digest';

/** A value RFC 8785 cannot write: a string with a lone surrogate, or a number that is NaN or infinite. */
export class NotCanonicalizable extends Error {
  constructor(reason: string) {
    super(`Not canonicalizable as RFC 8785 JSON: ${reason}`);
    this.name = 'NotCanonicalizable';
  }
}

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a JSON value: object members sorted by the
 * UTF-16 code units of their names, no whitespace, strings and numbers written as ECMAScript's
 * JSON.stringify writes them. Members whose value is undefined are left out, as JSON.stringify does.
 * The one canonical form behind control's `frame_hash` and `policy_version` and the ledger's
 * idempotency fingerprints; docs/receipts.md says how to recompute it elsewhere.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (e) {
    throw new NotCanonicalizable((e as Error).message);
  }
  return text ?? 'null';
}

/** `prefix` + lowercase hex SHA-256 of the UTF-8 bytes of `canonicalJson(value)`. */
export function canonicalDigest(prefix: string, value: unknown): string {
  return prefix + sha256Hex(canonicalJson(value));
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why a leaf of parsed input (a string or number; anything else passes) has no RFC 8785 form, or
 * null: the services refuse such input up front, so hashing never meets it.
 */
export function leafNotCanonical(value: unknown): string | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? 'Text may not contain a lone UTF-16 surrogate' : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'Numbers must be finite (a JSON number this large cannot be kept)';
  return null;
}
