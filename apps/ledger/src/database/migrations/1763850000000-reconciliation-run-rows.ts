import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An inline run reconciles the rows its request carried, not every open row of its source; the
 * run keeps their ids so a queued (background) run, or one picked up again after a crash, works on
 * the same rows. Source runs leave it null.
 */
export class ReconciliationRunRows1763850000000 implements MigrationInterface {
  name = 'ReconciliationRunRows1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_runs ADD COLUMN external_transaction_ids uuid[]`);
    // The sweep looks for queued runs and running ones whose heartbeat stopped.
    await q.query(`CREATE INDEX reconciliation_runs_active_idx ON reconciliation_runs (heartbeat_at) WHERE status IN ('queued', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX reconciliation_runs_active_idx`);
    await q.query(`ALTER TABLE reconciliation_runs DROP COLUMN external_transaction_ids`);
  }
}
