import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cheaper reconciliation and ingest writes.
 *
 * Reconciling a posting (reconciled_at, reconciliation_reference) now changes no indexed column, so
 * PostgreSQL can update it in place on its page (a HOT update: no new index entries) when the page
 * has room. The partial index of unreconciled postings named reconciled_at in its predicate, which
 * ruled that out; a run's candidate postings are read through (ledger_id, value_date) instead, bounded
 * by its rows' dates. Postings pages are filled to 70% from now on so that room is there for a
 * page's bank postings all reconciled in one batch (pages written before keep none until the table
 * is rewritten); a non-HOT update grows the table by as much anyway, with a new version elsewhere.
 *
 * A run's `matched[]` was built whole when it finished (for 100,000 matches, seconds of a join
 * and a sort on one core after every batch was written). Each batch of a run now writes its own
 * slice of it, and finishing joins the slices: `reconciliation_run_slices` holds them until then,
 * each as its entries' JSON texts joined by commas, with the first and last row of the order it covers.
 *
 * A match's keys to its row and its ledger are the writing statement's own: it inserts a match only
 * with its row, which the same statement marks matched within the ledger (and locks), or it rolls
 * back. Those checks were an eighth of a run's batch.
 *
 * A row's ledger and source keys are the ingest's own: every path that lands rows (the ingest route,
 * inbound pushes, inline runs, statement imports) looks the source up within the ledger first, and
 * neither ledgers nor sources are ever deleted. The per-row key checks were about a third of a
 * statement import's insert.
 */
export class ReconciliationHotUpdates1764200000000 implements MigrationInterface {
  name = 'ReconciliationHotUpdates1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX postings_ledger_unreconciled_idx`);
    await q.query(`ALTER TABLE postings SET (fillfactor = 70)`);
    await q.query(`ALTER TABLE external_transactions DROP CONSTRAINT external_transactions_ledger_id_fkey,
      DROP CONSTRAINT external_transactions_source_id_fkey`);
    await q.query(`CREATE TABLE reconciliation_run_slices (
      run_id uuid NOT NULL,
      id bigint GENERATED ALWAYS AS IDENTITY,
      ledger_id uuid NOT NULL,
      first_at timestamptz NOT NULL,
      first_id uuid NOT NULL,
      last_at timestamptz NOT NULL,
      last_id uuid NOT NULL,
      match_count int NOT NULL,
      entries text NOT NULL,
      PRIMARY KEY (run_id, id))`);
    // Written once and read once, within minutes: compressing them would cost more than it saves.
    await q.query(`ALTER TABLE reconciliation_run_slices ALTER COLUMN entries SET STORAGE EXTERNAL`);
    await q.query(`ALTER TABLE reconciliation_matches DROP CONSTRAINT reconciliation_matches_external_transaction_id_fkey,
      DROP CONSTRAINT reconciliation_matches_ledger_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE reconciliation_run_slices`);
    await q.query(`ALTER TABLE reconciliation_matches ADD FOREIGN KEY (external_transaction_id) REFERENCES external_transactions (id),
      ADD FOREIGN KEY (ledger_id) REFERENCES ledgers (id)`);
    await q.query(`ALTER TABLE external_transactions ADD FOREIGN KEY (ledger_id) REFERENCES ledgers (id),
      ADD FOREIGN KEY (source_id) REFERENCES reconciliation_sources (id)`);
    await q.query(`ALTER TABLE postings RESET (fillfactor)`);
    await q.query(`CREATE INDEX postings_ledger_unreconciled_idx ON postings (ledger_id, currency, value_date) WHERE reconciled_at IS NULL`);
  }
}
