import { MigrationInterface, QueryRunner } from 'typeorm';

/** A source's ledger account per statement account reference, which balance checks use before default_account_id. */
export class SourceAccountMap1763960045000 implements MigrationInterface {
  name = 'SourceAccountMap1763960045000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_sources ADD COLUMN account_map jsonb NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_sources DROP COLUMN account_map`);
  }
}
