import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { canonicalDigest, canonicalJson, leafNotCanonical, NotCanonicalizable } from './canonical-json';

/*
 * The "v1" forms the services hashed with before RFC 8785 (control's frame and policy hashing, the
 * ledger's idempotency fingerprint), kept here as the oracle: every stored hash was made by one of
 * them, so RFC 8785 must write every value the services accept exactly as they did.
 */
function controlV1(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : controlV1(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${controlV1(record[k])}`);
  return `{${entries.join(',')}}`;
}

function ledgerV1(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(ledgerV1).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${ledgerV1(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

describe('canonicalJson (RFC 8785)', () => {
  it('writes every JSON value exactly as both pre-RFC 8785 forms did, so no stored hash changes', () => {
    // Full-range code points (astral ones as surrogate pairs) in keys and strings; doubles of every magnitude.
    const json = fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 });
    fc.assert(
      fc.property(json, (value) => {
        const parsed = JSON.parse(JSON.stringify(value));
        const jcs = canonicalJson(parsed);
        expect(jcs).toBe(controlV1(parsed));
        expect(jcs).toBe(ledgerV1(parsed));
        expect(JSON.parse(jcs)).toEqual(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it.each<[string, unknown, string]>([
    ['members sorted by UTF-16 code units, not code points', { '\ufb33': 1, '\ud83d\ude00': 2, '\u20ac': 3, '\u00f6': 4, '\u0080': 5, '1': 6, '\r': 7 }, '{"\\r":7,"1":6,"\u0080":5,"ö":4,"€":3,"😀":2,"דּ":1}'],
    ['numbers as ECMAScript writes them', [1e21, 1e-7, 0.000001, -0, 1.5e300, 333333333.3333333, 4.5, 2e-3, Number('9007199254740993')], '[1e+21,1e-7,0.000001,0,1.5e+300,333333333.3333333,4.5,0.002,9007199254740992]'],
    ['only the required escapes', { s: '\u0000\u001f"\\/\u007f\u2028é😀' }, '{"s":"\\u0000\\u001f\\"\\\\/\u007f\u2028é😀"}'],
    ['no whitespace, literals as is', { b: [true, false, null], a: {} }, '{"a":{},"b":[true,false,null]}'],
    ['undefined members left out, undefined elements null', { a: undefined, b: [undefined] }, '{"b":[null]}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('digests the UTF-8 bytes of the canonical form', () => {
    // sha256('{"a":"é"}') over UTF-8, recomputable with any SHA-256 tool.
    expect(canonicalDigest('fh_', { a: 'é' })).toBe('fh_' + createHash('sha256').update(Buffer.from('{"a":"é"}', 'utf8')).digest('hex'));
  });

  it('refuses what RFC 8785 cannot write, and says so for input checks', () => {
    for (const bad of [{ s: 'a\ud800' }, [Number.NaN], { n: Number.POSITIVE_INFINITY }]) expect(() => canonicalJson(bad)).toThrow(NotCanonicalizable);
    expect(leafNotCanonical('\udc00x')).toMatch(/surrogate/);
    expect(leafNotCanonical(Number.NEGATIVE_INFINITY)).toMatch(/finite/);
    for (const fine of ['😀', 'é', 1e308, -0, null, {}, true]) expect(leafNotCanonical(fine)).toBeNull();
  });
});
