import { MigrationInterface, QueryRunner } from 'typeorm';
import { WEBHOOK_TABLES_DROP, webhookTablesDdl } from '@bursar/queue';

/** Control webhook endpoints (per workspace), their deliveries and every delivery attempt. */
export class WebhookEndpoints1763880000100 implements MigrationInterface {
  name = 'WebhookEndpoints1763880000100';

  async up(q: QueryRunner): Promise<void> {
    const ddl = webhookTablesDdl({
      columns: ['workspace_id'],
      columnsDdl: 'workspace_id uuid NOT NULL',
      endpointTenantKey: 'FOREIGN KEY (workspace_id) REFERENCES workspaces (id)',
    });
    for (const statement of ddl) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of WEBHOOK_TABLES_DROP) await q.query(statement);
  }
}
