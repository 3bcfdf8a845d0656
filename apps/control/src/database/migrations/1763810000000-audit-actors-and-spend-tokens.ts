import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who did what in the audit log (a person's `sub` or an agent's id), and spend tokens: single-use
 * authorities an agent mints against its own budget, consumed by one conditional UPDATE.
 */
export class AuditActorsAndSpendTokens1763810000000 implements MigrationInterface {
  name = 'AuditActorsAndSpendTokens1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events ADD COLUMN actor_type text CHECK (actor_type IN ('person', 'agent', 'system'))`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN actor_id text`);
    await q.query(`CREATE INDEX audit_events_by_subject ON audit_events (workspace_id, subject_id)`);
    await q.query(`CREATE INDEX audit_events_by_trace ON audit_events (workspace_id, trace_id) WHERE trace_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE spend_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        budget_id uuid NOT NULL,
        amount_ceiling_cents bigint NOT NULL CHECK (amount_ceiling_cents > 0),
        counterparty text CHECK (length(counterparty) BETWEEN 1 AND 500),
        expires_at timestamptz,
        status text NOT NULL CHECK (status IN ('issued', 'consumed', 'expired', 'void')),
        consumed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'consumed') = (consumed_at IS NOT NULL)),
        FOREIGN KEY (agent_id, workspace_id) REFERENCES agents (id, workspace_id),
        FOREIGN KEY (budget_id, agent_id) REFERENCES budgets (id, agent_id)
      )`);
    await q.query(`CREATE INDEX spend_tokens_by_workspace ON spend_tokens (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX spend_tokens_by_budget ON spend_tokens (budget_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE spend_tokens`);
    await q.query(`DROP INDEX audit_events_by_trace`);
    await q.query(`DROP INDEX audit_events_by_subject`);
    await q.query(`ALTER TABLE audit_events DROP COLUMN actor_id`);
    await q.query(`ALTER TABLE audit_events DROP COLUMN actor_type`);
  }
}
