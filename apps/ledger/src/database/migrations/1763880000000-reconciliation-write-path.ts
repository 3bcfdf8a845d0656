import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cheaper reconciliation writes. The foreign keys dropped here are ones the writing transaction
 * already guarantees: a match, its posting links and its row's back-pointers are written together
 * (the postings and the row updated, so locked, in that same transaction), and postings, matches
 * and runs are never deleted (postings refuse it by trigger; nothing deletes the others). Each
 * cost a lookup per written row. The unique live indexes, which keep a posting or a row from being
 * matched twice, stay, and so do the keys from a match to its row and its ledger.
 *
 * A run's result arrays become `json` (text, kept as written): they are only ever written whole and
 * read back as text, so `jsonb`'s conversion both ways was pure cost (about a second for a run of
 * 100,000 matches). They are lz4-compressed where the server was built with lz4 (the embedded
 * PostgreSQL is not, and keeps the default method).
 */
export class ReconciliationWritePath1763880000000 implements MigrationInterface {
  name = 'ReconciliationWritePath1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_match_postings DROP CONSTRAINT reconciliation_match_postings_match_id_fkey,
      DROP CONSTRAINT reconciliation_match_postings_posting_id_fkey`);
    await q.query(`ALTER TABLE external_transactions DROP CONSTRAINT external_transactions_reconciliation_match_id_fkey,
      DROP CONSTRAINT external_transactions_reconciliation_run_id_fkey`);
    await q.query(`ALTER TABLE reconciliation_matches DROP CONSTRAINT reconciliation_matches_reconciliation_run_id_fkey`);
    await q.query(`ALTER TABLE reconciliation_runs
      ALTER COLUMN matched TYPE json USING matched::json, ALTER COLUMN matched SET DEFAULT '[]',
      ALTER COLUMN unmatched_external TYPE json USING unmatched_external::json, ALTER COLUMN unmatched_external SET DEFAULT '[]',
      ALTER COLUMN unmatched_internal TYPE json USING unmatched_internal::json, ALTER COLUMN unmatched_internal SET DEFAULT '[]'`);
    await q.query(`
      DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
          ALTER TABLE reconciliation_runs ALTER COLUMN matched SET COMPRESSION lz4,
            ALTER COLUMN unmatched_external SET COMPRESSION lz4, ALTER COLUMN unmatched_internal SET COMPRESSION lz4;
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reconciliation_runs
      ALTER COLUMN matched SET DEFAULT NULL, ALTER COLUMN matched TYPE jsonb USING matched::jsonb, ALTER COLUMN matched SET DEFAULT '[]',
      ALTER COLUMN matched SET COMPRESSION default,
      ALTER COLUMN unmatched_external SET DEFAULT NULL, ALTER COLUMN unmatched_external TYPE jsonb USING unmatched_external::jsonb,
      ALTER COLUMN unmatched_external SET DEFAULT '[]', ALTER COLUMN unmatched_external SET COMPRESSION default,
      ALTER COLUMN unmatched_internal SET DEFAULT NULL, ALTER COLUMN unmatched_internal TYPE jsonb USING unmatched_internal::jsonb,
      ALTER COLUMN unmatched_internal SET DEFAULT '[]', ALTER COLUMN unmatched_internal SET COMPRESSION default`);
    await q.query(`ALTER TABLE reconciliation_matches ADD FOREIGN KEY (reconciliation_run_id) REFERENCES reconciliation_runs (id)`);
    await q.query(`ALTER TABLE external_transactions ADD FOREIGN KEY (reconciliation_match_id) REFERENCES reconciliation_matches (id),
      ADD FOREIGN KEY (reconciliation_run_id) REFERENCES reconciliation_runs (id)`);
    await q.query(`ALTER TABLE reconciliation_match_postings ADD FOREIGN KEY (match_id) REFERENCES reconciliation_matches (id),
      ADD FOREIGN KEY (posting_id) REFERENCES postings (id)`);
  }
}
