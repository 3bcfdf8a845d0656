import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * Workspaces and their members, agents with their key digests, budgets, and the append-only audit
 * log. Composite foreign keys pin every row to its workspace (and a child budget to its parent's
 * agent) so no query can join across tenants by mistake.
 */
export class AccessLayer1763800000000 implements MigrationInterface {
  name = 'AccessLayer1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 64),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE workspace_memberships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        user_sub text NOT NULL,
        email text,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, user_sub)
      )`);
    await q.query(`CREATE INDEX workspace_memberships_by_sub ON workspace_memberships (user_sub)`);
    await q.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        status text NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        scopes text[] NOT NULL DEFAULT '{}',
        -- Leading characters of the key, unique, to find the row before comparing digests.
        key_lookup text NOT NULL UNIQUE,
        key_digest text NOT NULL,
        api_key_prefix text NOT NULL,
        max_budget_cents bigint CHECK (max_budget_cents >= 0),
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (id, workspace_id)
      )`);
    await q.query(`CREATE INDEX agents_by_workspace ON agents (workspace_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE budgets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        parent_budget_id uuid,
        budget_cents bigint NOT NULL CHECK (budget_cents > 0),
        spent_cents bigint NOT NULL DEFAULT 0 CHECK (spent_cents >= 0),
        -- Headroom lent to open child budgets (and, later, held by pending intents).
        reserved_cents bigint NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        status text NOT NULL CHECK (status IN ('active', 'exhausted', 'closed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- The last line of defence for every claim: a budget never gives more than it has.
        CHECK (spent_cents + reserved_cents <= budget_cents),
        UNIQUE (id, agent_id),
        FOREIGN KEY (agent_id, workspace_id) REFERENCES agents (id, workspace_id),
        FOREIGN KEY (parent_budget_id, agent_id) REFERENCES budgets (id, agent_id)
      )`);
    await q.query(`CREATE INDEX budgets_by_agent ON budgets (workspace_id, agent_id, created_at DESC)`);
    await q.query(`CREATE INDEX budgets_by_parent ON budgets (parent_budget_id) WHERE parent_budget_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        subject_type text NOT NULL,
        subject_id uuid NOT NULL,
        action text NOT NULL,
        trace_id text,
        snapshot jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX audit_events_by_workspace ON audit_events (workspace_id, created_at DESC, id DESC)`);
    await q.query(sqlFile('audit-events-append-only.sql'));
    await q.query(`
      CREATE TRIGGER audit_events_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await q.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
    await q.query(`DROP TABLE budgets`);
    await q.query(`DROP TABLE agents`);
    await q.query(`DROP TABLE workspace_memberships`);
    await q.query(`DROP TABLE workspaces`);
  }
}
