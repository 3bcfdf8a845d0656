import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * The books: account templates, accounts with one running balance row each, transactions, their
 * postings and external references, and period closes. Amounts are unbounded `numeric` of integer
 * minor units. Postings are append-only apart from their lifecycle columns (commit, void,
 * reconciliation), and no posting may land inside a closed period; triggers enforce both so a bug
 * above the database cannot break the books.
 */
export class Books1763730000000 implements MigrationInterface {
  name = 'Books1763730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_templates (
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        accounting_type text NOT NULL CHECK (accounting_type IN ('asset', 'liability', 'revenue', 'expense', 'equity')),
        allowed_currencies text[] NOT NULL DEFAULT '{}',
        balance_non_negative boolean NOT NULL DEFAULT false,
        description text,
        fund_classification text CHECK (fund_classification IN ('client_held', 'operator', 'neutral')),
        custody_provider text,
        custody_external_id text,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (ledger_id, name),
        CHECK ((custody_provider IS NULL) = (custody_external_id IS NULL))
      )`);
    await q.query(`
      CREATE TABLE accounts (
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        id text NOT NULL CHECK (id ~ '^[a-zA-Z0-9_:.\\-]{1,255}$'),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
        type text NOT NULL CHECK (type IN ('asset', 'liability', 'revenue', 'expense', 'equity')),
        currency text NOT NULL,
        overdraft_policy text NOT NULL CHECK (overdraft_policy IN ('allowed', 'none')),
        overdraft_limit numeric NOT NULL DEFAULT 0 CHECK (overdraft_limit >= 0 AND overdraft_limit = trunc(overdraft_limit)),
        account_kind text NOT NULL DEFAULT 'standard' CHECK (account_kind IN ('standard', 'restricted')),
        counterparty_ref text,
        fund_classification text NOT NULL CHECK (fund_classification IN ('client_held', 'operator', 'neutral')),
        custody_provider text,
        custody_external_id text,
        template text,
        parent_id text,
        ledgerable_type text,
        ledgerable_id text,
        metadata jsonb NOT NULL DEFAULT '{}',
        lock_version integer NOT NULL DEFAULT 1,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        closed_at timestamptz,
        closed_by_label text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (ledger_id, id),
        FOREIGN KEY (ledger_id, template) REFERENCES account_templates (ledger_id, name),
        FOREIGN KEY (ledger_id, parent_id) REFERENCES accounts (ledger_id, id),
        CHECK ((custody_provider IS NULL) = (custody_external_id IS NULL)),
        CHECK ((ledgerable_type IS NULL) = (ledgerable_id IS NULL)),
        CHECK ((status = 'closed') = (closed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX accounts_ledger_created_idx ON accounts (ledger_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX accounts_ledger_parent_idx ON accounts (ledger_id, parent_id) WHERE parent_id IS NOT NULL`);
    // Running totals per account and currency, moved in the transaction that writes the postings.
    await q.query(`
      CREATE TABLE account_balances (
        ledger_id uuid NOT NULL,
        account_id text NOT NULL,
        currency text NOT NULL,
        posted_debits numeric NOT NULL DEFAULT 0 CHECK (posted_debits >= 0),
        posted_credits numeric NOT NULL DEFAULT 0 CHECK (posted_credits >= 0),
        pending_debits numeric NOT NULL DEFAULT 0 CHECK (pending_debits >= 0),
        pending_credits numeric NOT NULL DEFAULT 0 CHECK (pending_credits >= 0),
        PRIMARY KEY (ledger_id, account_id, currency),
        FOREIGN KEY (ledger_id, account_id) REFERENCES accounts (ledger_id, id)
      )`);
    await q.query(`
      CREATE TABLE transactions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        idempotency_key text,
        kind text NOT NULL CHECK (kind IN ('standard', 'reversal', 'refund')),
        reverses uuid REFERENCES transactions (id),
        refund_amount numeric,
        refund_currency text,
        metadata jsonb NOT NULL DEFAULT '{}',
        value_date timestamptz NOT NULL,
        booking_date timestamptz NOT NULL DEFAULT clock_timestamp(),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (ledger_id, idempotency_key),
        CHECK ((kind = 'standard') = (reverses IS NULL)),
        CHECK ((kind = 'refund') = (refund_amount IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX transactions_ledger_created_idx ON transactions (ledger_id, created_at DESC, id DESC)`);
    // At most one full reversal per transaction, even under concurrent requests.
    await q.query(`CREATE UNIQUE INDEX transactions_one_reversal_idx ON transactions (reverses) WHERE kind = 'reversal'`);
    await q.query(`CREATE INDEX transactions_refunds_idx ON transactions (reverses) WHERE kind = 'refund'`);
    await q.query(`
      CREATE TABLE transaction_external_refs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL,
        transaction_id uuid NOT NULL REFERENCES transactions (id),
        rail text NOT NULL,
        ref_kind text NOT NULL,
        value text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (ledger_id, rail, ref_kind, value)
      )`);
    await q.query(`CREATE INDEX transaction_external_refs_tx_idx ON transaction_external_refs (transaction_id)`);
    await q.query(`
      CREATE TABLE postings (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        ledger_id uuid NOT NULL,
        transaction_id uuid NOT NULL REFERENCES transactions (id),
        account_id text NOT NULL,
        amount numeric NOT NULL CHECK (amount > 0 AND amount = trunc(amount)),
        currency text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
        pending boolean NOT NULL DEFAULT false,
        committed_at timestamptz,
        voided_at timestamptz,
        tags jsonb NOT NULL DEFAULT '{}',
        value_date timestamptz NOT NULL,
        reconciled_at timestamptz,
        reconciliation_reference text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        FOREIGN KEY (ledger_id, account_id) REFERENCES accounts (ledger_id, id),
        CHECK (NOT (pending AND voided_at IS NULL AND committed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX postings_transaction_idx ON postings (transaction_id, id)`);
    await q.query(`CREATE INDEX postings_ledger_account_idx ON postings (ledger_id, account_id, id)`);
    await q.query(`CREATE INDEX postings_ledger_value_date_idx ON postings (ledger_id, value_date)`);
    await q.query(`CREATE INDEX postings_ledger_id_idx ON postings (ledger_id, id)`);
    await q.query(`
      CREATE TABLE period_closes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        closed_by_label text NOT NULL CHECK (length(closed_by_label) BETWEEN 1 AND 200),
        note text,
        forced boolean NOT NULL DEFAULT false,
        forced_by_label text,
        forced_at timestamptz,
        trial_balance jsonb NOT NULL,
        reopened_at timestamptz,
        reopened_by_label text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK (period_end > period_start),
        CHECK (forced = (forced_at IS NOT NULL)),
        CHECK ((reopened_at IS NULL) = (reopened_by_label IS NULL))
      )`);
    await q.query(`CREATE INDEX period_closes_ledger_idx ON period_closes (ledger_id, period_start) WHERE reopened_at IS NULL`);

    // Templates are immutable: evolve them by creating a new name.
    await q.query(sqlFile('refuse-change.sql'));
    await q.query(`CREATE TRIGGER account_templates_immutable BEFORE UPDATE OR DELETE ON account_templates
      FOR EACH ROW EXECUTE FUNCTION refuse_change()`);
    await q.query(`CREATE TRIGGER transactions_append_only BEFORE DELETE ON transactions
      FOR EACH ROW EXECUTE FUNCTION refuse_change()`);
    await q.query(`CREATE TRIGGER postings_no_delete BEFORE DELETE ON postings
      FOR EACH ROW EXECUTE FUNCTION refuse_change()`);
    // A posting's economic columns never change; only pending -> committed, void and reconciliation.
    await q.query(sqlFile('postings-guard-update.sql'));
    await q.query(`CREATE TRIGGER postings_immutable BEFORE UPDATE ON postings
      FOR EACH ROW EXECUTE FUNCTION postings_guard_update()`);
    // The service checks closed periods first for a friendly error; this is the backstop.
    await q.query(`
      CREATE FUNCTION postings_refuse_closed_period() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM period_closes c WHERE c.ledger_id = NEW.ledger_id AND c.reopened_at IS NULL
                   AND NEW.value_date >= c.period_start AND NEW.value_date < c.period_end) THEN
          RAISE EXCEPTION 'value_date % is inside a closed period', NEW.value_date USING ERRCODE = 'BK001';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER postings_closed_period BEFORE INSERT ON postings
      FOR EACH ROW EXECUTE FUNCTION postings_refuse_closed_period()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE period_closes, postings, transaction_external_refs, transactions, account_balances, accounts, account_templates`);
    await q.query(`DROP FUNCTION postings_refuse_closed_period, postings_guard_update, refuse_change`);
  }
}
