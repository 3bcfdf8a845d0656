import { MigrationInterface, QueryRunner } from 'typeorm';

/** Statement files imported into a source (POST /sources/{id}/statements), and a source's CSV mapping. */
export class StatementImports1763960040000 implements MigrationInterface {
  name = 'StatementImports1763960040000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_sources ADD COLUMN csv_mapping jsonb`);
    await q.query(`
      CREATE TABLE statement_imports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        source_id uuid NOT NULL REFERENCES reconciliation_sources (id),
        format text NOT NULL CHECK (format IN ('camt053', 'mt940', 'bai2', 'ofx', 'csv')),
        statements jsonb NOT NULL,
        created_count integer NOT NULL,
        replayed_count integer NOT NULL,
        error_count integer NOT NULL,
        errors jsonb NOT NULL,
        balance_checks jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX statement_imports_source_created_idx ON statement_imports (ledger_id, source_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE statement_imports`);
    await q.query(`ALTER TABLE reconciliation_sources DROP COLUMN csv_mapping`);
  }
}
