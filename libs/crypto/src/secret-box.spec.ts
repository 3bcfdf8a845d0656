import { aesGcmOpen, aesGcmSeal, generateSecretKey, SecretBox } from './secret-box';

const hex = (s: string) => Buffer.from(s, 'hex');

describe('aesGcmSeal / aesGcmOpen', () => {
  // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases 14 and 16 (AES-256).
  it('matches test case 14 (zero key, zero IV, one zero block)', () => {
    const sealed = aesGcmSeal(Buffer.alloc(32), Buffer.alloc(12), Buffer.alloc(16));
    expect(sealed.ciphertext.toString('hex')).toBe('cea7403d4d606b6e074ec5d3baf39d18');
    expect(sealed.tag.toString('hex')).toBe('d0d1c8a799996bf0265b98b5d48ab919');
    expect(aesGcmOpen(Buffer.alloc(32), Buffer.alloc(12), sealed.ciphertext, sealed.tag)).toEqual(Buffer.alloc(16));
  });

  it('matches test case 16 (with AAD)', () => {
    const key = hex('feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308');
    const iv = hex('cafebabefacedbaddecaf888');
    const aad = hex('feedfacedeadbeeffeedfacedeadbeefabaddad2');
    const plaintext = hex(
      'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39',
    );
    const sealed = aesGcmSeal(key, iv, plaintext, aad);
    expect(sealed.ciphertext.toString('hex')).toBe(
      '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662',
    );
    expect(sealed.tag.toString('hex')).toBe('76fc6ece0f4e1768cddf8853bb2d551b');
    expect(aesGcmOpen(key, iv, sealed.ciphertext, sealed.tag, aad)).toEqual(plaintext);
  });

  it('rejects a truncated tag', () => {
    const sealed = aesGcmSeal(Buffer.alloc(32), Buffer.alloc(12), Buffer.alloc(16));
    expect(() => aesGcmOpen(Buffer.alloc(32), Buffer.alloc(12), sealed.ciphertext, sealed.tag.subarray(0, 12))).toThrow();
  });
});

describe('SecretBox', () => {
  const box = SecretBox.fromBase64(generateSecretKey());

  it('round-trips, including empty and non-ASCII plaintexts', () => {
    for (const plaintext of ['sk_live_abc123', '', 'päßwörd 🔑']) {
      expect(box.decrypt(box.encrypt(plaintext))).toBe(plaintext);
    }
  });

  it('emits v1.<iv>.<ciphertext>.<tag> with a fresh IV each time', () => {
    const token = box.encrypt('hello');
    const [version, iv, ciphertext, tag] = token.split('.');
    expect(token.split('.')).toHaveLength(4);
    expect(version).toBe('v1');
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(ciphertext, 'base64url')).toHaveLength(5);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(box.encrypt('hello')).not.toBe(token);
  });

  it('decrypts a token built from the known vector', () => {
    const zeroBox = new SecretBox(Buffer.alloc(32));
    const b64 = (b: Buffer) => b.toString('base64url');
    const token = `v1.${b64(Buffer.alloc(12))}.${b64(hex('cea7403d4d606b6e074ec5d3baf39d18'))}.${b64(hex('d0d1c8a799996bf0265b98b5d48ab919'))}`;
    expect(zeroBox.decrypt(token)).toBe('\0'.repeat(16));
  });

  it('binds the AAD', () => {
    const token = box.encrypt('secret', 'tenant_1:api_key');
    expect(box.decrypt(token, 'tenant_1:api_key')).toBe('secret');
    expect(() => box.decrypt(token, 'tenant_2:api_key')).toThrow(/decryption failed/);
    expect(() => box.decrypt(token)).toThrow(/decryption failed/);
  });

  it('detects tampering with any part', () => {
    const token = box.encrypt('secret value');
    const [version, ...parts] = token.split('.');
    parts.forEach((part, i) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] ^= 0x01;
      const tampered = [version, ...parts.map((p, j) => (j === i ? bytes.toString('base64url') : p))].join('.');
      expect(() => box.decrypt(tampered)).toThrow(/decryption failed/);
    });
  });

  it('rejects the wrong key', () => {
    const other = SecretBox.fromBase64(generateSecretKey());
    expect(() => other.decrypt(box.encrypt('secret'))).toThrow(/decryption failed/);
  });

  it.each([
    ['empty', ''],
    ['wrong version', (t: string) => t.replace(/^v1\./, 'v2.')],
    ['missing part', (t: string) => t.split('.').slice(0, 3).join('.')],
    ['extra part', (t: string) => `${t}.AAAA`],
    ['non-base64url characters', (t: string) => t.replace(/\.([^.]+)\./, '.$1!.')],
    ['short IV', (t: string) => t.replace(/^v1\.[^.]+\./, `v1.${Buffer.alloc(8).toString('base64url')}.`)],
    ['short tag', (t: string) => t.replace(/\.[^.]+$/, `.${Buffer.alloc(12).toString('base64url')}`)],
  ])('rejects a malformed token (%s)', (_case, mutate) => {
    const token = typeof mutate === 'string' ? mutate : mutate(box.encrypt('secret'));
    expect(() => box.decrypt(token)).toThrow(/malformed token/);
  });

  it('requires a 32-byte key and names the length it got', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow('SecretBox key must be 32 bytes, got 16');
    expect(() => SecretBox.fromBase64(Buffer.alloc(31).toString('base64'))).toThrow(/got 31/);
  });

  it('generates 32-byte base64 keys', () => {
    const key = generateSecretKey();
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(generateSecretKey()).not.toBe(key);
  });
});
