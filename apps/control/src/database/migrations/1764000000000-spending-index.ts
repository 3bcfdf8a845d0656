import { MigrationInterface, QueryRunner } from 'typeorm';

/** The Spending summary reads a workspace's intents by time range, across agents, kinds and states. */
export class SpendingIndex1764000000000 implements MigrationInterface {
  name = 'SpendingIndex1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX intents_by_workspace_time ON intents (workspace_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX intents_by_workspace_time`);
  }
}
