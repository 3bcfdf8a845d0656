import { MigrationInterface, QueryRunner } from 'typeorm';

/** A run's matches, read back when it completes (its `matched` array and counts come from them). */
export class ReconciliationMatchesByRun1763870000000 implements MigrationInterface {
  name = 'ReconciliationMatchesByRun1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX reconciliation_matches_run_idx ON reconciliation_matches (reconciliation_run_id) WHERE reconciliation_run_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX reconciliation_matches_run_idx`);
  }
}
