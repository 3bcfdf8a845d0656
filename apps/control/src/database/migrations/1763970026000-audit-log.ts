import { MigrationInterface, QueryRunner } from 'typeorm';
import { verifiableLogTablesSql } from '@bursar/service-kit';

/**
 * Control's audit log as a Merkle log per workspace (docs/verifiable-records.md): audit events gain
 * their place in commit order (the writing transaction's id, then a sequence number), filled by
 * default on every insert path, and the shared log tables hold the sealed entries and checkpoints.
 * Adding columns rewrites the table without firing the append-only row triggers; the rows already
 * there share this migration's transaction id and keep their physical order in `seq`.
 */
export class AuditLog1763970026000 implements MigrationInterface {
  name = 'AuditLog1763970026000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`);
    await q.query(`CREATE INDEX audit_events_by_commit_order ON audit_events (xid, seq)`);
    await q.query(verifiableLogTablesSql());
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE log_checkpoints, log_sealer, log_heads, log_entries`);
    await q.query(`DROP INDEX audit_events_by_commit_order`);
    await q.query(`ALTER TABLE audit_events DROP COLUMN seq`);
    await q.query(`ALTER TABLE audit_events DROP COLUMN xid`);
  }
}
