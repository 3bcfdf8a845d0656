import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What makes a decision reproducible: the policy versions decisions were made under (content
 * addressed, immutable, once per workspace; the existing ones recovered from the snapshots their
 * intents carry), and per intent the counters the decision read (null on older intents).
 */
export class DecisionRecords1763920000000 implements MigrationInterface {
  name = 'DecisionRecords1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE policy_versions (
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        id text NOT NULL CHECK (id ~ '^pv_[0-9a-f]{64}$'),
        rules jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        first_used_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id)
      )`);
    await q.query(`
      INSERT INTO policy_versions (workspace_id, id, rules, first_used_at)
      SELECT workspace_id, decision->>'policy_version', (array_agg(decision->'policy_snapshot' ORDER BY created_at))[1], min(created_at)
        FROM intents
       WHERE decision->>'policy_version' ~ '^pv_[0-9a-f]{64}$'
       GROUP BY workspace_id, decision->>'policy_version'`);
    await q.query(`ALTER TABLE intents ADD COLUMN decision_inputs jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE intents DROP COLUMN decision_inputs`);
    await q.query(`DROP TABLE policy_versions`);
  }
}
