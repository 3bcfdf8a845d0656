import { createHash } from 'node:crypto';

/*
 * RFC 9162 section 2.1 written out plainly from the RFC, on purpose apart from libs/crypto, so the
 * services' verifiable logs are checked against the text rather than against themselves: the tree
 * hash by its recursive definition (2.1.1) and the two verification algorithms (2.1.3.2, 2.1.4.2).
 */
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const nodeHash = (left: Buffer, right: Buffer) => sha256(Buffer.from([1]), left, right);

/** The leaf hash of a leaf's UTF-8 text. */
export const rfcLeafHash = (leaf: string) => sha256(Buffer.from([0]), Buffer.from(leaf, 'utf8'));

/** MTH(D[n]): the hash of the empty string, the leaf hash, or the node of the split at the largest power of two below n. */
export function rfcRoot(leafHashes: Buffer[]): Buffer {
  if (leafHashes.length === 0) return sha256();
  if (leafHashes.length === 1) return leafHashes[0];
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return nodeHash(rfcRoot(leafHashes.slice(0, k)), rfcRoot(leafHashes.slice(k)));
}

/** Whether `path` proves the leaf at `index` is in the tree of `treeSize` leaves whose root is `root`. */
export function rfcVerifyInclusion(leafHash: Buffer, index: number, treeSize: number, path: Buffer[], root: Buffer): boolean {
  if (index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = nodeHash(r, p);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 && r.equals(root);
}

/** Whether `proof` shows the tree of `first` leaves (root `firstHash`) is a prefix of the tree of `second` (root `secondHash`). */
export function rfcVerifyConsistency(first: number, second: number, proof: Buffer[], firstHash: Buffer, secondHash: Buffer): boolean {
  if (first === second) return proof.length === 0 && firstHash.equals(secondHash);
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstHash, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) [fn, sn] = [fn >> 1, sn >> 1];
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else sr = nodeHash(sr, c);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0;
}
