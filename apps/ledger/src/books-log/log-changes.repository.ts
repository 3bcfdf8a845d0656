import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { canonicalJson, sha256Hex } from '@bursar/crypto';
import { COMMIT_FRONTIER_SQL, type LogChange, type LogErasure, type LogPosition, type LogSource } from '@bursar/service-kit';

interface ChangeRow {
  source_id: string;
  log_id: string;
  type: string;
  resource_id: string;
  xid: string;
  seq: string;
  committed_at: Date;
  facts: Record<string, unknown> | null;
}

const COLUMNS = 'c.source_id::text AS source_id, c.log_id, c.type, c.resource_id, c.xid::text AS xid, c.seq::text AS seq, c.committed_at, c.facts';

/**
 * Facts kept out of a leaf as themselves: free-form metadata (which anonymization may erase) and a
 * close's trial balance (one row per account). The leaf holds their digest, `<name>_digest`.
 */
const DIGESTED = ['metadata', 'trial_balance'];

/** What an anonymization changes in facts: the metadata (so its digest) and party references. */
const ERASABLE = ['facts.metadata_digest', 'facts.counterparty_ref', 'facts.sender_party_id', 'facts.recipient_party_id'];

function toChange(row: ChangeRow): LogChange {
  const facts: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row.facts ?? {})) {
    if (DIGESTED.includes(k)) facts[`${k}_digest`] = v === null || v === undefined ? null : sha256Hex(canonicalJson(v));
    else facts[k] = v;
  }
  return {
    logId: row.log_id,
    type: row.type,
    resourceId: row.resource_id,
    sourceId: row.source_id,
    position: { xid: row.xid, seq: row.seq },
    committedAt: row.committed_at,
    facts,
  };
}

/** The ledger's changes as its books logs record them: the view ledger_log_changes (sql/ledger-log-changes.sql). */
@Injectable()
export class LogChangesRepository implements LogSource {
  async pending(em: EntityManager, after: LogPosition, limit: number): Promise<LogChange[]> {
    const rows: ChangeRow[] = await em.query(
      `SELECT ${COLUMNS} FROM ledger_log_changes c, (${COMMIT_FRONTIER_SQL}) b
       WHERE (c.xid, c.seq) > ($1::xid8, $2::bigint) AND c.xid < b.frontier ORDER BY c.xid, c.seq LIMIT $3`,
      [after.xid, after.seq, limit],
    );
    return rows.map(toChange);
  }

  async rebuild(em: EntityManager, ledgerId: string, sourceIds: readonly string[]): Promise<Map<string, LogChange>> {
    const rows: ChangeRow[] = await em.query(`SELECT ${COLUMNS} FROM ledger_log_changes c WHERE c.log_id = $1 AND c.source_id = ANY($2::uuid[])`, [ledgerId, sourceIds]);
    return new Map(rows.map((r) => [r.source_id, toChange(r)]));
  }

  async countUpTo(em: EntityManager, ledgerId: string, upTo: LogPosition): Promise<number> {
    const [row] = await em.query(`SELECT count(*)::int AS n FROM ledger_log_changes c WHERE c.log_id = $1 AND (c.xid, c.seq) <= ($2::xid8, $3::bigint)`, [
      ledgerId,
      upTo.xid,
      upTo.seq,
    ]);
    return row.n;
  }

  /** Seconds since the oldest committed change after `after` was written: how far the sealer is behind; 0 with none. */
  async unsealedAgeSeconds(em: EntityManager, after: LogPosition): Promise<number> {
    const [row] = await em.query(
      `SELECT coalesce(extract(epoch FROM clock_timestamp() - min(c.committed_at)), 0)::float8 AS seconds FROM ledger_log_changes c WHERE (c.xid, c.seq) > ($1::xid8, $2::bigint)`,
      [after.xid, after.seq],
    );
    return row.seconds;
  }

  /** An anonymization empties metadata and redacts party references (anonymization module) in every ledger of the tenant's mode. */
  async erasure(em: EntityManager, ledgerId: string): Promise<LogErasure | null> {
    const [row] = await em.query(
      `SELECT max(a.anonymized_at) AS at FROM anonymizations a JOIN ledgers l ON l.organization_id = a.organization_id AND l.mode = a.mode WHERE l.id = $1`,
      [ledgerId],
    );
    return row.at ? { members: ERASABLE, before: row.at } : null;
  }

  /** Every ledger of the deployment, whether its log has begun or not: what a whole check covers. */
  async allLedgerIds(em: EntityManager): Promise<string[]> {
    const rows: { id: string }[] = await em.query(`SELECT id FROM ledgers ORDER BY id`);
    return rows.map((r) => r.id);
  }
}
