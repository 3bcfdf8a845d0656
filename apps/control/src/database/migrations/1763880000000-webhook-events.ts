import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Control-layer webhook events, written in the transaction of the change they report. `seq` orders
 * them and `relayed_at` marks the ones the relay has fanned out to endpoints.
 */
export class WebhookEvents1763880000000 implements MigrationInterface {
  name = 'WebhookEvents1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        type text NOT NULL CHECK (length(type) BETWEEN 1 AND 200),
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        relayed_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_events_by_workspace ON webhook_events (workspace_id, seq DESC)`);
    // Keeps the relay's scan proportional to the backlog, not to the whole log.
    await q.query(`CREATE INDEX webhook_events_unrelayed_idx ON webhook_events (seq) WHERE relayed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_events`);
  }
}
