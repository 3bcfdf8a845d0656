import type { LogCheckpointRow, LogEntryRow } from '@bursar/service-kit';

export function presentLogEntry(row: LogEntryRow) {
  return {
    object: 'log_entry' as const,
    index: Number(row.index),
    type: row.type,
    resource_id: row.resource_id,
    committed_at: row.committed_at.toISOString(),
    leaf: row.leaf,
    leaf_hash: row.leaf_hash.toString('hex'),
    sealed_at: row.sealed_at.toISOString(),
  };
}

export function presentLogCheckpoint(row: LogCheckpointRow) {
  return {
    object: 'log_checkpoint' as const,
    ledger_id: row.log_id,
    tree_size: Number(row.tree_size),
    root_hash: row.root_hash.toString('hex'),
    timestamp: row.signed_at.toISOString(),
    kid: row.kid,
    token: row.token,
  };
}

export const hex = (hashes: readonly Buffer[]) => hashes.map((h) => h.toString('hex'));
