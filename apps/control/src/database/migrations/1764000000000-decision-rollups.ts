import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * What the Spending summary reads: every decision added up per workspace, hour or day, agent,
 * outcome, deciding rule ('' for none) and currency, kept by a trigger on intents (a decision's
 * outcome, amount and time never change after insert), and `decisions_between`, which reads a
 * range from them (partial hours at its edges from intents by time).
 */
export class DecisionRollups1764000000000 implements MigrationInterface {
  name = 'DecisionRollups1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX intents_by_workspace_time ON intents (workspace_id, created_at)`);
    await q.query(`
      CREATE TABLE decision_rollups (
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        span text NOT NULL CHECK (span IN ('hour', 'day')),
        bucket timestamptz NOT NULL,
        agent_id uuid NOT NULL,
        outcome text NOT NULL,
        rule text NOT NULL,
        currency text NOT NULL,
        decisions bigint NOT NULL CHECK (decisions > 0),
        amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
        PRIMARY KEY (workspace_id, span, bucket, agent_id, outcome, rule, currency)
      )`);
    await q.query(sqlFile('decision-rollups-add.sql'));
    await q.query(sqlFile('decisions-between.sql'));
    // The trigger first, then the backfill, in one transaction: the trigger's lock holds inserts back
    // until both commit, so no decision is counted twice or missed.
    await q.query(`
      CREATE TRIGGER intents_decision_rollups AFTER INSERT ON intents
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION decision_rollups_add()`);
    await q.query(`
      INSERT INTO decision_rollups (workspace_id, span, bucket, agent_id, outcome, rule, currency, decisions, amount_cents)
      SELECT i.workspace_id, s.span, date_trunc(s.span, i.created_at, 'UTC'), i.agent_id, i.decision->>'outcome',
             coalesce(i.decision->>'rule', ''), i.currency, count(*), sum(i.amount_cents)
        FROM intents i CROSS JOIN (VALUES ('hour'), ('day')) AS s (span)
       GROUP BY 1, 2, 3, 4, 5, 6, 7`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER intents_decision_rollups ON intents`);
    await q.query(`DROP FUNCTION decision_rollups_add()`);
    await q.query(`DROP FUNCTION decisions_between(uuid, timestamptz, timestamptz, timestamptz, timestamptz, timestamptz, timestamptz)`);
    await q.query(`DROP TABLE decision_rollups`);
    await q.query(`DROP INDEX intents_by_workspace_time`);
  }
}
