import { digestSecret, hmacSha256Hex, sha256Hex, timingSafeEqualString, verifySecret } from './digest';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 vectors', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes strings and buffers identically', () => {
    expect(sha256Hex(Buffer.from('abc'))).toBe(sha256Hex('abc'));
  });
});

describe('hmacSha256Hex', () => {
  it('matches RFC 4231 test case 2', () => {
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('timingSafeEqualString', () => {
  it('is true for equal strings', () => {
    expect(timingSafeEqualString('s3cr3t', 's3cr3t')).toBe(true);
    expect(timingSafeEqualString('', '')).toBe(true);
  });

  it('is false for different strings of the same length', () => {
    expect(timingSafeEqualString('s3cr3t', 's3cr3u')).toBe(false);
  });

  it('is false (and does not throw) for different lengths', () => {
    expect(timingSafeEqualString('short', 'much longer value')).toBe(false);
    expect(timingSafeEqualString('', 'x')).toBe(false);
  });
});

describe('digestSecret / verifySecret', () => {
  it('produces a prefixed SHA-256 digest', () => {
    expect(digestSecret('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('verifies the right secret only', () => {
    const digest = digestSecret('sk_live_123');
    expect(verifySecret('sk_live_123', digest)).toBe(true);
    expect(verifySecret('sk_live_124', digest)).toBe(false);
    expect(verifySecret('sk_live_123', digest.slice('sha256:'.length))).toBe(false);
    expect(verifySecret('sk_live_123', '')).toBe(false);
  });
});
