import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * What the Spending summary reads: decisions added up per workspace, hour or day, agent, outcome,
 * deciding rule ('' for none) and currency (a decision's outcome, amount and time never change after
 * insert). They are folded in after the fact, whole hours at a time, by `fold_decision_rollups()`
 * (off the authorization's write path); `decision_rollups_folded.folded_to` says how far: every
 * intent created before it is in the rollups. `decisions_between` reads a range from them, and
 * from intents by time where the rollups do not reach.
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
    // Never folded: the first fold adds every intent from the oldest one on.
    await q.query(`
      CREATE TABLE decision_rollups_folded (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        folded_to timestamptz NOT NULL
      )`);
    await q.query(`INSERT INTO decision_rollups_folded (folded_to) VALUES ('-infinity')`);
    await q.query(sqlFile('decision-rollups-fold.sql'));
    await q.query(sqlFile('decisions-between.sql'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION fold_decision_rollups()`);
    await q.query(`DROP FUNCTION decisions_between(uuid, timestamptz, timestamptz, timestamptz, timestamptz, timestamptz, timestamptz)`);
    await q.query(`DROP TABLE decision_rollups_folded`);
    await q.query(`DROP TABLE decision_rollups`);
    await q.query(`DROP INDEX intents_by_workspace_time`);
  }
}
