import { createHash } from 'node:crypto';

/*
 * The Merkle tree of RFC 9162 (Certificate Transparency 2.0) section 2.1: SHA-256, a 0x00 prefix on
 * leaves and 0x01 on interior nodes so that no leaf can pass for a node. Proofs follow its PATH and
 * SUBPROOF definitions, and the verifiers its sections 2.1.3.2 and 2.1.4.2, so any CT client library
 * checks our proofs. Hashes are 32-byte Buffers here; docs/verifiable-records.md writes them as hex.
 */

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

export function leafHash(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/**
 * A compact range over the first `size` leaves: the roots of its perfect subtrees, largest (leftmost)
 * first, one per set bit of `size`. What a sealer keeps to append leaves and sign roots in O(log n).
 */
export interface MerkleFrontier {
  readonly size: number;
  readonly peaks: readonly Buffer[];
}

export const EMPTY_FRONTIER: MerkleFrontier = { size: 0, peaks: [] };

export function appendLeaf(state: MerkleFrontier, leaf: Buffer): MerkleFrontier {
  const peaks = [...state.peaks];
  let carry = leaf;
  // Each trailing set bit of the old size is a perfect subtree of the new one's size: merge into it.
  for (let s = state.size; s % 2 === 1; s = Math.floor(s / 2)) carry = nodeHash(peaks.pop() as Buffer, carry);
  peaks.push(carry);
  return { size: state.size + 1, peaks };
}

/** MTH of the frontier's tree: the peaks folded right to left, as the RFC's left-perfect split implies. */
export function rootOfState(state: MerkleFrontier): Buffer {
  if (state.size === 0) return EMPTY_ROOT;
  let root = state.peaks[state.peaks.length - 1];
  for (let i = state.peaks.length - 2; i >= 0; i--) root = nodeHash(state.peaks[i], root);
  return root;
}

/** MTH(D[n]) of RFC 9162 s.2.1.1 over leaf hashes; the empty tree's root is SHA-256 of nothing. */
export function rootOf(leafHashes: readonly Buffer[]): Buffer {
  return rootOfState(leafHashes.reduce(appendLeaf, EMPTY_FRONTIER));
}

/** The largest power of two smaller than n (n > 1): the size of the left subtree. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function checkSize(leafHashes: readonly Buffer[], treeSize: number): void {
  if (!Number.isSafeInteger(treeSize) || treeSize < 0 || treeSize > leafHashes.length) throw new RangeError(`tree size ${treeSize} is not within the ${leafHashes.length} leaves given`);
}

/** PATH(m, D[n]) of RFC 9162 s.2.1.3.1: sibling subtree roots, the leaf's own level first. */
export function inclusionProof(leafHashes: readonly Buffer[], index: number, treeSize: number): Buffer[] {
  checkSize(leafHashes, treeSize);
  if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize) throw new RangeError(`index ${index} is not in a tree of ${treeSize}`);
  const siblings: Buffer[] = [];
  let [start, n, m] = [0, treeSize, index];
  // Walk down from the root; the RFC's recursion emits the same siblings bottom-up.
  while (n > 1) {
    const k = split(n);
    if (m < k) {
      siblings.push(rootOf(leafHashes.slice(start + k, start + n)));
      n = k;
    } else {
      siblings.push(rootOf(leafHashes.slice(start, start + k)));
      [start, n, m] = [start + k, n - k, m - k];
    }
  }
  return siblings.reverse();
}

/** PROOF(m, D[n]) of RFC 9162 s.2.1.4.1; empty when fromSize is 0 or equals toSize. */
export function consistencyProof(leafHashes: readonly Buffer[], fromSize: number, toSize: number): Buffer[] {
  checkSize(leafHashes, toSize);
  if (!Number.isSafeInteger(fromSize) || fromSize < 0 || fromSize > toSize) throw new RangeError(`size ${fromSize} is not within a tree of ${toSize}`);
  if (fromSize === 0 || fromSize === toSize) return [];
  const siblings: Buffer[] = [];
  let [start, n, m, whole] = [0, toSize, fromSize, true];
  while (m !== n) {
    const k = split(n);
    if (m <= k) {
      siblings.push(rootOf(leafHashes.slice(start + k, start + n)));
      n = k;
    } else {
      siblings.push(rootOf(leafHashes.slice(start, start + k)));
      [start, n, m, whole] = [start + k, n - k, m - k, false];
    }
  }
  // SUBPROOF(m, D[m], b): the old tree's own root is left out only when it is the whole old tree.
  const head = whole ? [] : [rootOf(leafHashes.slice(start, start + n))];
  return [...head, ...siblings.reverse()];
}

const isOdd = (x: number) => x % 2 === 1;
const half = (x: number) => Math.floor(x / 2);
const sameHash = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/** RFC 9162 s.2.1.3.2. */
export function verifyInclusion(leaf: Uint8Array, index: number, treeSize: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false;
  let [fn, sn] = [index, treeSize - 1];
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!isOdd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && sameHash(r, root);
}

/**
 * RFC 9162 s.2.1.4.2, with the two cases it leaves to the caller: equal sizes need equal roots and no
 * proof, and every tree extends the empty one.
 */
export function verifyConsistency(fromSize: number, toSize: number, proof: readonly Uint8Array[], fromRoot: Uint8Array, toRoot: Uint8Array): boolean {
  if (!Number.isSafeInteger(fromSize) || !Number.isSafeInteger(toSize) || fromSize < 0 || fromSize > toSize) return false;
  if (fromSize === 0) return proof.length === 0 && sameHash(fromRoot, EMPTY_ROOT);
  if (fromSize === toSize) return proof.length === 0 && sameHash(fromRoot, toRoot);
  if (proof.length === 0) return false;
  // A perfect old tree is a node of the new one; its root starts the path.
  const path = isPowerOfTwo(fromSize) ? [fromRoot, ...proof] : proof;
  let [fn, sn] = [fromSize - 1, toSize - 1];
  while (isOdd(fn)) [fn, sn] = [half(fn), half(sn)];
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) [fn, sn] = [half(fn), half(sn)];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sameHash(fr, fromRoot) && sameHash(sr, toRoot) && sn === 0;
}

function isPowerOfTwo(n: number): boolean {
  while (n > 1 && n % 2 === 0) n /= 2;
  return n === 1;
}
