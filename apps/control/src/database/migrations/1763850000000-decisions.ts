import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Policies, policy modules, the intents every authorization records (actions and payments share
 * one table so windows and caps count both), and the cosigning keys (private halves sealed).
 */
export class Decisions1763850000000 implements MigrationInterface {
  name = 'Decisions1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE policy_modules (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        name text NOT NULL CHECK (name ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(name) <= 100),
        description text,
        rules jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, name)
      )`);
    await q.query(`
      CREATE TABLE policies (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'disabled')),
        mode text NOT NULL CHECK (mode IN ('blocklist', 'allowlist')),
        per_transaction_cap_cents bigint CHECK (per_transaction_cap_cents >= 0),
        velocity_cap_cents bigint CHECK (velocity_cap_cents >= 0),
        velocity_window_seconds integer CHECK (velocity_window_seconds >= 1),
        monthly_cap_cents bigint CHECK (monthly_cap_cents >= 0),
        approval_threshold_cents bigint CHECK (approval_threshold_cents >= 0),
        counterparty_allowlist text[] NOT NULL DEFAULT '{}',
        imports text[] NOT NULL DEFAULT '{}',
        rules jsonb NOT NULL DEFAULT '[]',
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((velocity_cap_cents IS NULL) = (velocity_window_seconds IS NULL)),
        FOREIGN KEY (agent_id, workspace_id) REFERENCES agents (id, workspace_id)
      )`);
    await q.query(`CREATE INDEX policies_by_agent ON policies (workspace_id, agent_id, created_at, id)`);
    await q.query(`CREATE INDEX policies_by_import ON policies USING gin (imports)`);
    await q.query(`
      CREATE TABLE intents (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        budget_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('action', 'payment')),
        action_type text NOT NULL,
        resource text,
        amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
        currency text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'held', 'completed', 'executed', 'failed', 'denied')),
        -- What this intent holds of its budget right now: released on fail/deny, spent on complete.
        reserved_cents bigint NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
        idempotency_key text NOT NULL,
        request_digest text NOT NULL,
        http_status integer NOT NULL,
        trace_id text,
        spend_token_id uuid,
        failure_reason text,
        resolved_by_sub text,
        resolved_at timestamptz,
        ledger_transaction_id text,
        decision jsonb NOT NULL,
        decision_context jsonb,
        metadata jsonb NOT NULL DEFAULT '{}',
        cosignature text,
        cosign_expires_at timestamptz,
        cosign_consumed_at timestamptz,
        consumed_by text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_id, kind, idempotency_key),
        FOREIGN KEY (agent_id, workspace_id) REFERENCES agents (id, workspace_id),
        FOREIGN KEY (budget_id, agent_id) REFERENCES budgets (id, agent_id)
      )`);
    // Windows sum what an agent spent recently; only intents that count are indexed.
    await q.query(`
      CREATE INDEX intents_window ON intents (agent_id, created_at)
        WHERE state IN ('pending', 'held', 'completed', 'executed')`);
    await q.query(`CREATE INDEX intents_queue ON intents (workspace_id, kind, state, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX intents_by_budget ON intents (budget_id, state)`);
    await q.query(`
      CREATE TABLE cosign_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kid text NOT NULL UNIQUE,
        public_jwk jsonb NOT NULL,
        private_jwk_sealed text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'retired')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        retired_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX cosign_keys_one_active ON cosign_keys (status) WHERE status = 'active'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE cosign_keys`);
    await q.query(`DROP TABLE intents`);
    await q.query(`DROP TABLE policies`);
    await q.query(`DROP TABLE policy_modules`);
  }
}
