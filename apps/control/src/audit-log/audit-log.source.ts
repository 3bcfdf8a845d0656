import type { EntityManager } from 'typeorm';
import { canonicalJson, sha256Hex } from '@bursar/crypto';
import { COMMIT_FRONTIER_SQL, type LogChange, type LogPosition, type LogSource } from '@bursar/service-kit';

interface AuditEventRow {
  id: string;
  workspace_id: string;
  subject_type: string;
  subject_id: string;
  action: string;
  trace_id: string | null;
  actor_type: string | null;
  actor_id: string | null;
  /** As text, parsed row by row in `toChange` (see `changesSql`). */
  snapshot: string;
  created_at: Date;
  xid: string;
  seq: string;
}

/**
 * Every read of audit events as log changes goes through here, so sealing and verifying read the same
 * columns. The snapshot comes as text: parsed by the driver, every row's object tree would stay alive
 * until the whole batch had arrived, long enough under load for the collector to promote it; parsed
 * in `toChange`, each tree dies young.
 */
const changesSql = (from: string, where: string) => `SELECT e.id, e.workspace_id, e.subject_type, e.subject_id, e.action, e.trace_id,
    e.actor_type, e.actor_id, e.snapshot::text AS snapshot, e.created_at, e.xid::text AS xid, e.seq::text AS seq
  FROM ${from} WHERE ${where} ORDER BY e.xid, e.seq`;

const PENDING_SQL = `WITH b AS MATERIALIZED (${COMMIT_FRONTIER_SQL}) ${changesSql(
  'audit_events e, b',
  'e.xid < b.frontier AND (e.xid, e.seq) > ($1::xid8, $2::bigint)',
)} LIMIT $3`;
const REBUILD_SQL = changesSql('audit_events e', 'e.workspace_id = $1 AND e.id = ANY($2::uuid[])');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An audit event as a log entry of its workspace: `type` is its action (already dotted, e.g.
 * `approval.granted`), the resource its subject, the facts what the event recorded and never
 * changes, with the event's id so anyone can fetch the event itself. The snapshot enters as a digest
 * of its canonical JSON, so leaves stay small while any change to it shows. docs/verifiable-records.md, "Control's audit log".
 */
function toChange(row: AuditEventRow): LogChange {
  return {
    logId: row.workspace_id,
    type: row.action,
    resourceId: row.subject_id,
    sourceId: row.id,
    position: { xid: row.xid, seq: row.seq },
    committedAt: row.created_at,
    facts: {
      audit_event_id: row.id,
      subject_type: row.subject_type,
      subject_id: row.subject_id,
      action: row.action,
      trace_id: row.trace_id,
      actor_type: row.actor_type,
      actor_id: row.actor_id,
      snapshot_sha256: sha256Hex(canonicalJson(JSON.parse(row.snapshot))),
    },
  };
}

/** Audit events in commit order, one log per workspace (the log id is the workspace id). */
export class AuditLogSource implements LogSource {
  async pending(em: EntityManager, after: LogPosition, limit: number): Promise<LogChange[]> {
    const rows: AuditEventRow[] = await em.query(PENDING_SQL, [after.xid, after.seq, limit]);
    return rows.map(toChange);
  }

  async rebuild(em: EntityManager, logId: string, sourceIds: readonly string[]): Promise<Map<string, LogChange>> {
    // A source id that is no audit event id names no row (and must not fail the uuid cast).
    const rows: AuditEventRow[] = await em.query(REBUILD_SQL, [logId, sourceIds.filter((id) => UUID.test(id))]);
    return new Map(rows.map((r) => [r.id, toChange(r)]));
  }

  async countUpTo(em: EntityManager, logId: string, upTo: LogPosition): Promise<number> {
    const [row] = await em.query(`SELECT count(*)::text AS n FROM audit_events WHERE workspace_id = $1 AND (xid, seq) <= ($2::xid8, $3::bigint)`, [
      logId,
      upTo.xid,
      upTo.seq,
    ]);
    return Number(row.n);
  }
}
