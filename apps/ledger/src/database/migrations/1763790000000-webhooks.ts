import { MigrationInterface, QueryRunner } from 'typeorm';
import { WEBHOOK_TABLES_DROP, webhookTablesDdl } from '@bursar/queue';

/** Ledger webhook endpoints (one ledger each), their deliveries and every delivery attempt. */
export class Webhooks1763790000000 implements MigrationInterface {
  name = 'Webhooks1763790000000';

  async up(q: QueryRunner): Promise<void> {
    const ddl = webhookTablesDdl({
      columns: ['organization_id', 'ledger_id', 'mode'],
      columnsDdl: `organization_id uuid NOT NULL, ledger_id uuid NOT NULL, mode text NOT NULL CHECK (mode IN ('test', 'live'))`,
      endpointTenantKey: 'FOREIGN KEY (ledger_id, organization_id, mode) REFERENCES ledgers (id, organization_id, mode)',
    });
    for (const statement of ddl) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of WEBHOOK_TABLES_DROP) await q.query(statement);
  }
}
