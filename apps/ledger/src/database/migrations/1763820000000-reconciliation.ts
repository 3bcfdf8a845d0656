import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation: sources of external (bank, processor) rows, the rows themselves, the matches
 * that tie a row to postings, and the runs that make matches. The database, not the service, is
 * what keeps a posting or a row from being matched twice and a source from running twice at once.
 */
export class Reconciliation1763820000000 implements MigrationInterface {
  name = 'Reconciliation1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE reconciliation_sources (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        name text NOT NULL CHECK (name = lower(name) AND length(name) BETWEEN 1 AND 200),
        kind text NOT NULL DEFAULT 'custom',
        description text,
        implicit boolean NOT NULL DEFAULT false,
        default_strategy text NOT NULL DEFAULT 'exact' CHECK (default_strategy IN ('exact', 'sum_in_window')),
        default_window_seconds integer NOT NULL DEFAULT 86400 CHECK (default_window_seconds >= 0),
        default_tolerance_minor_units numeric NOT NULL DEFAULT 0
          CHECK (default_tolerance_minor_units >= 0 AND default_tolerance_minor_units = trunc(default_tolerance_minor_units)),
        default_account_id text,
        inbound_enabled boolean NOT NULL DEFAULT false,
        -- The push URL's token is looked up by digest; the token itself is sealed so the URL can be shown again.
        inbound_token_digest text UNIQUE,
        inbound_token_sealed text,
        inbound_secret_sealed text,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (ledger_id, name),
        CHECK ((inbound_token_digest IS NULL) = (inbound_secret_sealed IS NULL))
      )`);
    await q.query(`CREATE INDEX reconciliation_sources_ledger_created_idx ON reconciliation_sources (ledger_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE reconciliation_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        source_id uuid NOT NULL REFERENCES reconciliation_sources (id),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        external_reference text,
        note text,
        strategy text NOT NULL CHECK (strategy IN ('exact', 'sum_in_window')),
        window_seconds integer NOT NULL CHECK (window_seconds >= 0),
        auto_resolve_below_minor_units numeric NOT NULL DEFAULT 0,
        range_from timestamptz,
        range_to timestamptz,
        matched_count integer NOT NULL DEFAULT 0,
        unmatched_count integer NOT NULL DEFAULT 0,
        pass_counts jsonb NOT NULL DEFAULT '{}',
        matched jsonb NOT NULL DEFAULT '[]',
        unmatched_external jsonb NOT NULL DEFAULT '[]',
        unmatched_internal jsonb NOT NULL DEFAULT '[]',
        error_message text,
        attempts integer NOT NULL DEFAULT 0,
        started_at timestamptz,
        heartbeat_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX reconciliation_runs_ledger_created_idx ON reconciliation_runs (ledger_id, created_at DESC, id DESC)`);
    // One active run per source, also when two requests race to start one.
    await q.query(`CREATE UNIQUE INDEX reconciliation_runs_one_active_idx ON reconciliation_runs (source_id)
      WHERE status IN ('queued', 'running')`);

    await q.query(`
      CREATE TABLE external_transactions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        source_id uuid NOT NULL REFERENCES reconciliation_sources (id),
        external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 255),
        amount numeric NOT NULL CHECK (amount = trunc(amount)),
        currency text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'matched', 'ignored')),
        account_id text,
        occurred_at timestamptz NOT NULL,
        matched_at timestamptz,
        ignored_reason text,
        reconciliation_run_id uuid REFERENCES reconciliation_runs (id),
        reconciliation_match_id uuid,
        reference_rail text,
        reference_kind text,
        reference_value text,
        raw jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (source_id, external_id),
        CHECK ((reference_rail IS NULL) = (reference_kind IS NULL) AND (reference_kind IS NULL) = (reference_value IS NULL)),
        CHECK ((status = 'matched') = (reconciliation_match_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX external_transactions_ledger_created_idx ON external_transactions (ledger_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX external_transactions_source_open_idx ON external_transactions (source_id, occurred_at) WHERE status = 'open'`);

    await q.query(`
      CREATE TABLE reconciliation_matches (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        external_transaction_id uuid NOT NULL REFERENCES external_transactions (id),
        reconciliation_run_id uuid REFERENCES reconciliation_runs (id),
        strategy text NOT NULL CHECK (strategy IN ('external_ref', 'exact', 'sum_in_window', 'manual')),
        posting_ids bigint[] NOT NULL CHECK (cardinality(posting_ids) >= 1),
        amount numeric NOT NULL,
        currency text NOT NULL,
        residual numeric NOT NULL DEFAULT 0,
        auto_resolved boolean NOT NULL DEFAULT false,
        note text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        reversed_at timestamptz,
        reversed_reason text
      )`);
    await q.query(`CREATE UNIQUE INDEX reconciliation_matches_one_live_per_row_idx ON reconciliation_matches (external_transaction_id)
      WHERE reversed_at IS NULL`);
    await q.query(`ALTER TABLE external_transactions ADD FOREIGN KEY (reconciliation_match_id) REFERENCES reconciliation_matches (id)`);

    // A posting belongs to at most one live match; unmatching releases it.
    await q.query(`
      CREATE TABLE reconciliation_match_postings (
        match_id uuid NOT NULL REFERENCES reconciliation_matches (id),
        posting_id bigint NOT NULL REFERENCES postings (id),
        ledger_id uuid NOT NULL,
        released_at timestamptz,
        PRIMARY KEY (match_id, posting_id)
      )`);
    await q.query(`CREATE UNIQUE INDEX reconciliation_match_postings_live_idx ON reconciliation_match_postings (posting_id)
      WHERE released_at IS NULL`);
    // Candidate postings for matching: the unreconciled ones of a ledger by value date.
    await q.query(`CREATE INDEX postings_ledger_unreconciled_idx ON postings (ledger_id, currency, value_date) WHERE reconciled_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX postings_ledger_unreconciled_idx`);
    await q.query(`ALTER TABLE external_transactions DROP COLUMN reconciliation_match_id`);
    await q.query(`DROP TABLE reconciliation_match_postings, reconciliation_matches, external_transactions, reconciliation_runs, reconciliation_sources`);
  }
}
