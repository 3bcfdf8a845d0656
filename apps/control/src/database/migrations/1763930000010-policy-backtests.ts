import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backtests of a policy draft over recorded decisions, and the decisions each one changed. The draft
 * is stored compiled-ready (modules resolved when the backtest was asked for), so a run picked up
 * again after a restart evaluates the same rules. `heartbeat_at` tells a live run from a dead one.
 */
export class PolicyBacktests1763930000010 implements MigrationInterface {
  name = 'PolicyBacktests1763930000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE policy_backtests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        agent_id uuid REFERENCES agents (id),
        mode text NOT NULL CHECK (mode IN ('sequential', 'independent')),
        policy jsonb NOT NULL,
        snapshot jsonb NOT NULL,
        from_at timestamptz NOT NULL,
        to_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        progress double precision NOT NULL DEFAULT 0,
        evaluated bigint NOT NULL DEFAULT 0,
        result jsonb,
        failure_reason text,
        attempts integer NOT NULL DEFAULT 0,
        heartbeat_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX policy_backtests_by_workspace ON policy_backtests (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX policy_backtests_unfinished ON policy_backtests (status) WHERE status IN ('queued', 'running')`);
    await q.query(`
      CREATE TABLE policy_backtest_changes (
        backtest_id uuid NOT NULL REFERENCES policy_backtests (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        intent_id uuid NOT NULL,
        kind text NOT NULL,
        agent_id uuid NOT NULL,
        action_type text NOT NULL,
        resource text,
        amount_cents bigint NOT NULL,
        currency text NOT NULL,
        requested_at timestamptz NOT NULL,
        original jsonb NOT NULL,
        replayed jsonb NOT NULL,
        PRIMARY KEY (backtest_id, seq),
        UNIQUE (backtest_id, intent_id)
      )`);
    // History streams in (agent, created_at, id) order, one agent or the whole workspace.
    await q.query(`CREATE INDEX intents_history ON intents (workspace_id, agent_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX intents_history`);
    await q.query(`DROP TABLE policy_backtest_changes`);
    await q.query(`DROP TABLE policy_backtests`);
  }
}
