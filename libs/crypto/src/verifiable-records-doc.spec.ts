import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from './canonical-json';
import { consistencyProof, inclusionProof, leafHash, rootOf, verifyConsistency, verifyInclusion } from './merkle-log';

interface Vectors {
  leaves: { data: string; leaf_hash: string }[];
  roots: { tree_size: number; root_hash: string }[];
  inclusion: { index: number; tree_size: number; proof: string[] };
  consistency: { from_size: number; to_size: number; proof: string[] };
}

/** The one json block under "## Test vectors" in docs/verifiable-records.md. */
function vectorsOfDoc(): Vectors {
  const doc = readFileSync(join(__dirname, '../../../docs/verifiable-records.md'), 'utf8');
  const section = doc.split('\n## Test vectors\n')[1];
  const block = /```json\n([\s\S]*?)\n```/.exec(section ?? '');
  if (!block) throw new Error('docs/verifiable-records.md has no json block under "## Test vectors"');
  return JSON.parse(block[1]) as Vectors;
}

describe('docs/verifiable-records.md test vectors', () => {
  const v = vectorsOfDoc();
  const leaves = v.leaves.map((l) => leafHash(Buffer.from(l.data, 'utf8')));
  const hex = (hashes: Buffer[]) => hashes.map((h) => h.toString('hex'));
  const bytes = (hexes: string[]) => hexes.map((h) => Buffer.from(h, 'hex'));
  const rootAt = (n: number) => Buffer.from(v.roots.find((r) => r.tree_size === n)?.root_hash ?? '', 'hex');

  it('gives the leaf hashes and the root of every prefix the code computes', () => {
    expect(v.leaves.length).toBeGreaterThan(4);
    expect(hex(leaves)).toEqual(v.leaves.map((l) => l.leaf_hash));
    expect(v.roots.map((r) => r.tree_size)).toEqual(Array.from({ length: leaves.length + 1 }, (_, n) => n));
    for (const r of v.roots) expect(rootOf(leaves.slice(0, r.tree_size)).toString('hex')).toBe(r.root_hash);
  });

  it('gives leaves in their canonical form, with the five members of an entry', () => {
    v.leaves.forEach((l, index) => {
      const leaf = JSON.parse(l.data) as Record<string, unknown>;
      expect(canonicalJson(leaf)).toBe(l.data);
      expect(Object.keys(leaf).sort()).toEqual(['committed_at', 'facts', 'index', 'resource_id', 'type']);
      expect(leaf.index).toBe(index);
    });
  });

  it('gives the inclusion proof the code makes, and it verifies against the documented root', () => {
    const { index, tree_size, proof } = v.inclusion;
    expect(hex(inclusionProof(leaves, index, tree_size))).toEqual(proof);
    expect(verifyInclusion(leaves[index], index, tree_size, bytes(proof), rootAt(tree_size))).toBe(true);
  });

  it('gives the consistency proof the code makes, and it verifies between the documented roots', () => {
    const { from_size, to_size, proof } = v.consistency;
    expect(hex(consistencyProof(leaves, from_size, to_size))).toEqual(proof);
    expect(verifyConsistency(from_size, to_size, bytes(proof), rootAt(from_size), rootAt(to_size))).toBe(true);
  });
});
