import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { appendLeaf, consistencyProof, EMPTY_FRONTIER, inclusionProof, leafHash, rootOf, rootOfState, verifyConsistency, verifyInclusion, type MerkleFrontier } from './merkle-log';

/*
 * The independent reference: RFC 9162 s.2.1.1, 2.1.3.1 and 2.1.4.1 written as the RFC states them,
 * recursively over the raw entries, with its own hashing.
 */
const sha = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
function MTH(D: Buffer[]): Buffer {
  if (D.length === 0) return sha();
  if (D.length === 1) return sha(Buffer.from([0]), D[0]);
  return sha(Buffer.from([1]), MTH(D.slice(0, k(D.length))), MTH(D.slice(k(D.length))));
}
function PATH(m: number, D: Buffer[]): Buffer[] {
  if (D.length === 1) return [];
  const s = k(D.length);
  return m < s ? [...PATH(m, D.slice(0, s)), MTH(D.slice(s))] : [...PATH(m - s, D.slice(s)), MTH(D.slice(0, s))];
}
function SUBPROOF(m: number, D: Buffer[], b: boolean): Buffer[] {
  if (m === D.length) return b ? [] : [MTH(D)];
  const s = k(D.length);
  return m <= s ? [...SUBPROOF(m, D.slice(0, s), b), MTH(D.slice(s))] : [...SUBPROOF(m - s, D.slice(s), false), MTH(D.slice(0, s))];
}
const PROOF = (m: number, D: Buffer[]) => SUBPROOF(m, D, true);

const entries = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`entry ${i}`));
const hex = (hashes: Buffer[]) => hashes.map((h) => h.toString('hex'));

describe('Merkle log (RFC 9162)', () => {
  const D = entries(64);
  const leaves = D.map((d) => leafHash(d));

  it('hashes the empty tree, leaves and roots as the RFC does, for every size 0..64', () => {
    expect(rootOf([]).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (let n = 0; n <= 64; n++) expect(rootOf(leaves.slice(0, n)).toString('hex')).toBe(MTH(D.slice(0, n)).toString('hex'));
  });

  it('keeps a frontier whose root is the full root at every size 0..200', () => {
    const many = entries(200).map((d) => leafHash(d));
    let state: MerkleFrontier = EMPTY_FRONTIER;
    for (let n = 0; n <= 200; n++) {
      expect(state.size).toBe(n);
      expect(rootOfState(state).equals(MTH(entries(n)))).toBe(true);
      if (n < 200) state = appendLeaf(state, many[n]);
    }
  });

  it('makes the RFC inclusion proof of every index in every size 1..64, and verifies it', () => {
    for (let n = 1; n <= 64; n++) {
      const root = MTH(D.slice(0, n));
      for (let m = 0; m < n; m++) {
        const proof = inclusionProof(leaves, m, n);
        expect(hex(proof)).toEqual(hex(PATH(m, D.slice(0, n))));
        expect(verifyInclusion(leaves[m], m, n, proof, root)).toBe(true);
      }
    }
  });

  it('makes the RFC consistency proof of every pair of sizes up to 64, and verifies it', () => {
    for (let n = 1; n <= 64; n++) {
      const root = MTH(D.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(leaves, m, n);
        expect(hex(proof)).toEqual(m === n ? [] : hex(PROOF(m, D.slice(0, n))));
        expect(verifyConsistency(m, n, proof, MTH(D.slice(0, m)), root)).toBe(true);
      }
      expect(verifyConsistency(0, n, [], rootOf([]), root)).toBe(true);
    }
  });

  it('refuses sizes and indices outside the tree', () => {
    expect(() => inclusionProof(leaves, 5, 5)).toThrow(RangeError);
    expect(() => inclusionProof(leaves, 0, 65)).toThrow(RangeError);
    expect(() => consistencyProof(leaves, 6, 5)).toThrow(RangeError);
    expect(verifyInclusion(leaves[0], 1, 1, [], leaves[0])).toBe(false);
    expect(verifyConsistency(3, 2, [], rootOf(leaves.slice(0, 3)), rootOf(leaves.slice(0, 2)))).toBe(false);
    expect(verifyConsistency(2, 2, [], rootOf(leaves.slice(0, 2)), rootOf(leaves.slice(0, 3)))).toBe(false);
  });

  describe('properties', () => {
    const big = entries(300).map((d) => leafHash(d));
    const sizeAndIndex = fc.integer({ min: 1, max: 300 }).chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 1)));
    const sizes = fc.integer({ min: 2, max: 300 }).chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n)));
    const flip = (proof: Buffer[], at: number, bit: number) => proof.map((h, i) => (i === at % proof.length ? Buffer.from(h.map((b, j) => (j === bit >> 3 ? b ^ (1 << (bit & 7)) : b))) : h));

    it('every inclusion proof verifies; another leaf, index, size or root fails; any flipped bit fails', () => {
      fc.assert(
        fc.property(sizeAndIndex, fc.nat(), fc.nat(255), ([n, m], at, bit) => {
          const root = rootOf(big.slice(0, n));
          const proof = inclusionProof(big, m, n);
          expect(verifyInclusion(big[m], m, n, proof, root)).toBe(true);
          expect(verifyInclusion(big[(m + 1) % 300], m, n, proof, root)).toBe(false);
          expect(verifyInclusion(big[m], (m + 1) % n, n, proof, root)).toBe(n === 1);
          expect(verifyInclusion(big[m], m, n, proof, rootOf(big.slice(1, n + 1)))).toBe(false);
          if (proof.length > 0) expect(verifyInclusion(big[m], m, n, flip(proof, at, bit), root)).toBe(false);
          if (proof.length > 0) expect(verifyInclusion(big[m], m, n, proof.slice(1), root)).toBe(false);
        }),
        { numRuns: 300 },
      );
    });

    it('every consistency proof verifies; another root or any flipped bit fails', () => {
      fc.assert(
        fc.property(sizes, fc.nat(), fc.nat(255), ([m, n], at, bit) => {
          const [fromRoot, toRoot] = [rootOf(big.slice(0, m)), rootOf(big.slice(0, n))];
          const proof = consistencyProof(big, m, n);
          expect(verifyConsistency(m, n, proof, fromRoot, toRoot)).toBe(true);
          expect(verifyConsistency(m, n, proof, rootOf(big.slice(0, m - 1)), toRoot)).toBe(false);
          expect(verifyConsistency(m, n, proof, fromRoot, rootOf(big.slice(0, n - 1)))).toBe(false);
          expect(verifyConsistency(m, n, flip(proof, at, bit), fromRoot, toRoot)).toBe(false);
          expect(verifyConsistency(m, n, [...proof, proof[0]], fromRoot, toRoot)).toBe(false);
        }),
        { numRuns: 300 },
      );
    });
  });
});
