import { canonicalJson, leafHash } from '@bursar/crypto';
import type { LogChange, LogPosition } from './log-source';

/** An entry's leaf bytes: the RFC 8785 form of these five members (docs/verifiable-records.md). */
export function logLeaf(index: number, change: Pick<LogChange, 'type' | 'resourceId' | 'facts' | 'committedAt'>): string {
  return canonicalJson({ index, type: change.type, resource_id: change.resourceId, facts: change.facts, committed_at: change.committedAt.toISOString() });
}

export function logLeafHash(leaf: string): Buffer {
  return leafHash(Buffer.from(leaf, 'utf8'));
}

/** Commit order: by transaction id, then sequence number; both compared as integers. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  const x = BigInt(a.xid) - BigInt(b.xid);
  if (x !== 0n) return x < 0n ? -1 : 1;
  const s = BigInt(a.seq) - BigInt(b.seq);
  return s === 0n ? 0 : s < 0n ? -1 : 1;
}
