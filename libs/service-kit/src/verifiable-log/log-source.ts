import type { EntityManager } from 'typeorm';

/** A change's place in commit order: its writing transaction's id (xid8, as text), then its sequence number. */
export interface LogPosition {
  xid: string;
  seq: string;
}

export const LOG_START: LogPosition = { xid: '0', seq: '0' };

/** One committed change as a log records it: what it was, where it sits, and the immutable facts it wrote. */
export interface LogChange {
  logId: string;
  type: string;
  resourceId: string;
  /** The row the change is read from; one log entry per source row, ever. */
  sourceId: string;
  position: LogPosition;
  committedAt: Date;
  facts: Record<string, unknown>;
}

/**
 * Where a service's changes come from. Both methods read the same rows the same way, so the sealer
 * and the verifier cannot disagree on what a leaf says: one builds it, the other rebuilds it.
 */
export interface LogSource {
  /** Changes after `after` that no transaction still in flight can precede, in commit order. */
  pending(em: EntityManager, after: LogPosition, limit: number): Promise<LogChange[]>;
  /** The changes that `sourceIds` name, rebuilt from the rows as they are now; a missing row is left out. */
  rebuild(em: EntityManager, logId: string, sourceIds: readonly string[]): Promise<Map<string, LogChange>>;
  /** How many of a log's changes sit at or before `upTo`: what a complete log holds once sealed that far. */
  countUpTo(em: EntityManager, logId: string, upTo: LogPosition): Promise<number>;
  /**
   * A lawful erasure (anonymization) of personal data in this log's rows: the leaf members it may
   * have changed (`facts.metadata_digest`), in entries committed before `before`. Such entries are
   * vouched for by the leaf sealed before the erasure; null when nothing was ever erased.
   */
  erasure?(em: EntityManager, logId: string): Promise<LogErasure | null>;
}

export interface LogErasure {
  members: readonly string[];
  before: Date;
}
