import { sha256Hex } from '@bursar/crypto';
import { fingerprintOf } from './idempotency.service';

describe('fingerprintOf', () => {
  it('hashes the bytes fingerprints stored before RFC 8785 hashed, a body-less request included', () => {
    // The pre-RFC 8785 form wrote an absent body as null; RFC 8785 would leave the member out.
    expect(fingerprintOf({ path: '/v1/x', ledger: '', query: {}, body: undefined })).toBe(sha256Hex('{"body":null,"ledger":"","path":"/v1/x","query":{}}'));
    expect(fingerprintOf({ path: '/v1/x', ledger: 'l', query: { b: '2', a: ['1'] }, body: { z: 1.5, é: 'ü', a: [true, null] } })).toBe(
      sha256Hex('{"body":{"a":[true,null],"z":1.5,"é":"ü"},"ledger":"l","path":"/v1/x","query":{"a":["1"],"b":"2"}}'),
    );
  });
});
