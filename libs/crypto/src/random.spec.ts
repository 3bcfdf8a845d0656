import { pooledRandomBytes, randomId, randomToken, randomUuid } from './random';

describe('randomToken', () => {
  it('is base64url of the requested number of bytes', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(Buffer.from(randomToken(8), 'base64url')).toHaveLength(8);
  });

  it('rejects a non-positive byte count', () => {
    expect(() => randomToken(0)).toThrow(/positive integer/);
  });
});

describe('randomId', () => {
  it('is the prefix, an underscore and fixed-width base62', () => {
    // 22 base62 digits are the fewest that hold 2^128 (62^21 < 2^128 <= 62^22).
    expect(randomId('acct')).toMatch(/^acct_[A-Za-z0-9]{22}$/);
    // 62^5 < 2^32 <= 62^6.
    expect(randomId('x', 4)).toMatch(/^x_[A-Za-z0-9]{6}$/);
  });

  it('does not repeat over 1000 ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => randomId('evt')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^evt_[A-Za-z0-9]{22}$/);
  });

  it('rejects an empty prefix', () => {
    expect(() => randomId('')).toThrow(/prefix/);
  });
});

describe('randomUuid', () => {
  it('is a version 4 UUID', () => {
    expect(randomUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('pooledRandomBytes', () => {
  it('hands out the requested size, never the same bytes twice, across block boundaries', () => {
    const draws = Array.from({ length: 2000 }, () => pooledRandomBytes(12).toString('hex'));
    expect(draws.every((d) => d.length === 24)).toBe(true);
    // 2,000 draws of 12 bytes span several 4 KiB blocks; a reused offset would repeat a value.
    expect(new Set(draws).size).toBe(draws.length);
    expect(pooledRandomBytes(5000)).toHaveLength(5000);
  });

  it('leaves earlier draws unchanged when a new block is drawn', () => {
    const first = pooledRandomBytes(16);
    const copy = Buffer.from(first);
    for (let i = 0; i < 1000; i++) pooledRandomBytes(16);
    expect(first.equals(copy)).toBe(true);
  });
});
