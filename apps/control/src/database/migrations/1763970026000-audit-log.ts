import { MigrationInterface, QueryRunner } from 'typeorm';
import { verifiableLogTablesSql } from '@bursar/service-kit';

/**
 * Control's audit log as a Merkle log per workspace (docs/verifiable-records.md): audit events gain
 * their place in commit order (the writing transaction's id, then a sequence number), filled by
 * default on every insert path, and the shared log tables hold the sealed entries and checkpoints.
 */
export class AuditLog1763970026000 implements MigrationInterface {
  name = 'AuditLog1763970026000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()`);
    // The events already there share this transaction's id; they are sealed in the order they were written.
    await q.query(`ALTER TABLE audit_events ADD COLUMN seq bigint`);
    await q.query(`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_or_delete`);
    await q.query(`UPDATE audit_events e SET seq = o.n FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM audit_events) o WHERE o.id = e.id`);
    await q.query(`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_or_delete`);
    await q.query(`ALTER TABLE audit_events ALTER COLUMN seq SET NOT NULL, ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY`);
    await q.query(`SELECT setval(pg_get_serial_sequence('audit_events', 'seq'), coalesce(max(seq), 0) + 1, false) FROM audit_events`);
    await q.query(`CREATE INDEX audit_events_by_commit_order ON audit_events (xid, seq)`);
    await q.query(verifiableLogTablesSql());
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE log_checkpoints, log_sealer, log_heads, log_entries`);
    await q.query(`DROP INDEX audit_events_by_commit_order`);
    await q.query(`ALTER TABLE audit_events DROP COLUMN seq, DROP COLUMN xid`);
  }
}
