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

  describe('the examples published in RFC 8785', () => {
    it('s.3.2.2: the sample input with numbers, escapes and literals', () => {
      const input = '{\n "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n "literals": [null, true, false]\n}';
      expect(canonicalJson(JSON.parse(input))).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    });

    it('s.3.2.3: the property sorting example', () => {
      const input = '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}';
      expect(canonicalJson(JSON.parse(input))).toBe(
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
      );
    });

    // Appendix B: IEEE 754 doubles given by their bit patterns, and the text JCS writes for each.
    it.each<[string, string]>([
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ])('Appendix B: %s is written %s', (bits, text) => {
      expect(canonicalJson(Buffer.from(bits, 'hex').readDoubleBE(0))).toBe(text);
    });

    it('Appendix B: NaN and Infinity have no form', () => {
      for (const bits of ['7fffffffffffffff', '7ff0000000000000']) expect(() => canonicalJson(Buffer.from(bits, 'hex').readDoubleBE(0))).toThrow(NotCanonicalizable);
    });
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
