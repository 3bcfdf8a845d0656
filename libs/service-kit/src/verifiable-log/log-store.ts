import type { DataSource, EntityManager } from 'typeorm';
import { EMPTY_FRONTIER, type MerkleFrontier } from '@bursar/crypto';
import { LOG_START, type LogPosition } from './log-source';

export interface LogEntryRow {
  log_id: string;
  index: string;
  type: string;
  resource_id: string;
  source_id: string;
  xid: string;
  seq: string;
  committed_at: Date;
  leaf: string;
  leaf_hash: Buffer;
  sealed_at: Date;
}

export interface NewLogEntry {
  logId: string;
  index: number;
  type: string;
  resourceId: string;
  sourceId: string;
  position: LogPosition;
  committedAt: Date;
  leaf: string;
  leafHash: Buffer;
}

export interface LogCheckpointRow {
  log_id: string;
  tree_size: string;
  root_hash: Buffer;
  kid: string;
  token: string;
  signed_at: Date;
}

export interface LogHead {
  logId: string;
  frontier: MerkleFrontier;
  updatedAt: Date;
}

const ENTRY_COLUMNS = 'log_id, index::text AS index, type, resource_id, source_id, xid::text AS xid, seq::text AS seq, committed_at, leaf, leaf_hash, sealed_at';
const CHECKPOINT_COLUMNS = 'log_id, tree_size::text AS tree_size, root_hash, kid, token, signed_at';
// Both lists name bigints as text: an ORDER BY must qualify the column, or it sorts the text (10 before 2).

/**
 * The tables of verifiable-log-tables.sql, the same in every service's database. Every read names
 * its log: one subject's log is never served from another's.
 */
export class LogStore {
  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** Serialises sealing and signing across replicas: `wait` false gives up at once when another holds it. */
  async lock(em: EntityManager, wait: boolean): Promise<boolean> {
    const [row] = await em.query(`SELECT ${wait ? 'pg_advisory_xact_lock' : 'pg_try_advisory_xact_lock'}(hashtextextended('bursar.log_sealer', 0))::text AS held`);
    return wait || row.held === 'true';
  }

  async position(em: EntityManager): Promise<LogPosition> {
    const [row] = await em.query(`SELECT xid::text AS xid, seq::text AS seq FROM log_sealer`);
    return row ?? LOG_START;
  }

  async advance(em: EntityManager, to: LogPosition): Promise<void> {
    await em.query(
      `INSERT INTO log_sealer (id, xid, seq) VALUES (true, $1::xid8, $2) ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, seq = excluded.seq`,
      [to.xid, to.seq],
    );
  }

  /** The heads of these logs, locked for the rest of the transaction; a log not yet begun is empty. */
  async heads(em: EntityManager, logIds: readonly string[]): Promise<Map<string, LogHead>> {
    const rows: { log_id: string; tree_size: string; peaks: Buffer[]; updated_at: Date }[] = await em.query(
      `SELECT log_id, tree_size::text AS tree_size, peaks, updated_at FROM log_heads WHERE log_id = ANY($1::uuid[]) ORDER BY log_id FOR UPDATE`,
      [logIds],
    );
    return new Map(rows.map((r) => [r.log_id, { logId: r.log_id, frontier: { size: Number(r.tree_size), peaks: r.peaks }, updatedAt: r.updated_at }]));
  }

  async head(em: EntityManager, logId: string): Promise<LogHead> {
    const rows: { tree_size: string; peaks: Buffer[]; updated_at: Date }[] = await em.query(
      `SELECT tree_size::text AS tree_size, peaks, updated_at FROM log_heads WHERE log_id = $1`,
      [logId],
    );
    return rows[0]
      ? { logId, frontier: { size: Number(rows[0].tree_size), peaks: rows[0].peaks }, updatedAt: rows[0].updated_at }
      : { logId, frontier: EMPTY_FRONTIER, updatedAt: new Date(0) };
  }

  async saveHeads(em: EntityManager, heads: readonly { logId: string; frontier: MerkleFrontier }[]): Promise<void> {
    if (heads.length === 0) return;
    // bytea[] per row cannot pass through unnest of a 2-D array, so each head's peaks travel as hex text.
    await em.query(
      `INSERT INTO log_heads (log_id, tree_size, peaks)
       SELECT h.log_id, h.tree_size, ARRAY(SELECT decode(p, 'hex') FROM jsonb_array_elements_text(h.peaks) WITH ORDINALITY AS x(p, n) ORDER BY n)
       FROM jsonb_to_recordset($1::jsonb) AS h(log_id uuid, tree_size bigint, peaks jsonb)
       ON CONFLICT (log_id) DO UPDATE SET tree_size = excluded.tree_size, peaks = excluded.peaks, updated_at = clock_timestamp()`,
      [JSON.stringify(heads.map((h) => ({ log_id: h.logId, tree_size: h.frontier.size, peaks: h.frontier.peaks.map((p) => p.toString('hex')) })))],
    );
  }

  async append(em: EntityManager, entries: readonly NewLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await em.query(
      `INSERT INTO log_entries (log_id, index, type, resource_id, source_id, xid, seq, committed_at, leaf, leaf_hash)
       SELECT e.log_id, e.index, e.type, e.resource_id, e.source_id, e.xid::xid8, e.seq, e.committed_at, e.leaf, decode(e.leaf_hash, 'hex')
       FROM jsonb_to_recordset($1::jsonb) AS e(log_id uuid, index bigint, type text, resource_id text, source_id text, xid text, seq bigint,
         committed_at timestamptz, leaf text, leaf_hash text)`,
      [
        JSON.stringify(
          entries.map((e) => ({
            log_id: e.logId,
            index: e.index,
            type: e.type,
            resource_id: e.resourceId,
            source_id: e.sourceId,
            xid: e.position.xid,
            seq: e.position.seq,
            committed_at: e.committedAt.toISOString(),
            leaf: e.leaf,
            leaf_hash: e.leafHash.toString('hex'),
          })),
        ),
      ],
    );
  }

  /** Entries after `afterIndex` (exclusive; -1 for the start), oldest first, optionally of one resource. */
  entries(em: EntityManager, logId: string, page: { afterIndex: number; limit: number; resourceId?: string }): Promise<LogEntryRow[]> {
    return em.query(
      `SELECT ${ENTRY_COLUMNS} FROM log_entries
       WHERE log_id = $1 AND index > $2 AND ($4::text IS NULL OR resource_id = $4)
       -- Qualified: the bare name is the text output column, which would put 10 before 2.
       ORDER BY log_entries.index LIMIT $3`,
      [logId, page.afterIndex, page.limit, page.resourceId ?? null],
    );
  }

  /** The index of each resource's first entry of one of `types`; resources not yet sealed are left out. */
  async indexesOf(em: EntityManager, logId: string, types: readonly string[], resourceIds: readonly string[]): Promise<Map<string, number>> {
    if (resourceIds.length === 0) return new Map();
    const rows: { resource_id: string; index: string }[] = await em.query(
      `SELECT resource_id, min(index)::text AS index FROM log_entries WHERE log_id = $1 AND type = ANY($2::text[]) AND resource_id = ANY($3::text[]) GROUP BY resource_id`,
      [logId, types, resourceIds],
    );
    return new Map(rows.map((r) => [r.resource_id, Number(r.index)]));
  }

  /** The leaf hashes of the first `treeSize` entries, in order: what proofs are computed over. */
  async leafHashes(em: EntityManager, logId: string, treeSize: number): Promise<Buffer[]> {
    const rows: { leaf_hash: Buffer }[] = await em.query(`SELECT leaf_hash FROM log_entries WHERE log_id = $1 AND index < $2 ORDER BY index`, [logId, treeSize]);
    return rows.map((r) => r.leaf_hash);
  }

  async insertCheckpoint(em: EntityManager, row: { logId: string; treeSize: number; rootHash: Buffer; kid: string; token: string; signedAt: Date }): Promise<void> {
    await em.query(
      `INSERT INTO log_checkpoints (log_id, tree_size, root_hash, kid, token, signed_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (log_id, tree_size) DO NOTHING`,
      [row.logId, row.treeSize, row.rootHash, row.kid, row.token, row.signedAt],
    );
  }

  async checkpoint(em: EntityManager, logId: string, treeSize: number): Promise<LogCheckpointRow | null> {
    const rows: LogCheckpointRow[] = await em.query(`SELECT ${CHECKPOINT_COLUMNS} FROM log_checkpoints WHERE log_id = $1 AND tree_size = $2`, [logId, treeSize]);
    return rows[0] ?? null;
  }

  /** Newest first, below `beforeSize` when given. */
  checkpoints(em: EntityManager, logId: string, page: { beforeSize?: number; limit: number }): Promise<LogCheckpointRow[]> {
    return em.query(
      `SELECT ${CHECKPOINT_COLUMNS} FROM log_checkpoints WHERE log_id = $1 AND ($2::bigint IS NULL OR log_checkpoints.tree_size < $2)
       ORDER BY log_checkpoints.tree_size DESC LIMIT $3`,
      [logId, page.beforeSize ?? null, page.limit],
    );
  }

  /**
   * Logs whose head is ahead of their newest checkpoint by `every` entries, or by any entry once
   * that checkpoint is `seconds` old (a log never signed counts as signed at the epoch).
   */
  async dueForCheckpoint(em: EntityManager, every: number, seconds: number): Promise<string[]> {
    const rows: { log_id: string }[] = await em.query(
      `SELECT h.log_id FROM log_heads h
       LEFT JOIN LATERAL (SELECT c.tree_size, c.signed_at FROM log_checkpoints c WHERE c.log_id = h.log_id ORDER BY c.tree_size DESC LIMIT 1) c ON true
       WHERE h.tree_size > coalesce(c.tree_size, 0)
         AND (h.tree_size - coalesce(c.tree_size, 0) >= $1 OR coalesce(c.signed_at, 'epoch') <= clock_timestamp() - $2 * interval '1 second')`,
      [every, seconds],
    );
    return rows.map((r) => r.log_id);
  }
}
