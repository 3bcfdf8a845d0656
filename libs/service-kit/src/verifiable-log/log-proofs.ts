import { consistencyProof, inclusionProof, rootOf } from '@bursar/crypto';
import type { EntityManager } from 'typeorm';
import type { LogStore } from './log-store';

/**
 * RFC 9162 proofs over a log's stored leaf hashes. Sizes must be within the log's sealed size
 * (each service checks that first, to answer in its own error envelope). Reads the leaf hashes of
 * the tree once per proof: 32 bytes an entry.
 */
export class LogProofs {
  constructor(private readonly store: LogStore) {}

  async inclusion(em: EntityManager, logId: string, index: number, treeSize: number): Promise<{ leafHash: Buffer; rootHash: Buffer; path: Buffer[] }> {
    const leaves = await this.store.leafHashes(em, logId, treeSize);
    return { leafHash: leaves[index], rootHash: rootOf(leaves), path: inclusionProof(leaves, index, treeSize) };
  }

  async consistency(em: EntityManager, logId: string, fromSize: number, toSize: number): Promise<{ fromRoot: Buffer; toRoot: Buffer; path: Buffer[] }> {
    const leaves = await this.store.leafHashes(em, logId, toSize);
    return { fromRoot: rootOf(leaves.slice(0, fromSize)), toRoot: rootOf(leaves), path: consistencyProof(leaves, fromSize, toSize) };
  }
}
