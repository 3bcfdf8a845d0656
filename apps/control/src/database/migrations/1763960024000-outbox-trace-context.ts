import { MigrationInterface, QueryRunner } from 'typeorm';
import { traceContextColumnsDdl } from '@bursar/queue';

const ddl = traceContextColumnsDdl('webhook_events');

/** Webhook events and deliveries keep the trace context of the request that caused them. */
export class OutboxTraceContext1763960024000 implements MigrationInterface {
  name = 'OutboxTraceContext1763960024000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of ddl.up) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of ddl.down) await q.query(statement);
  }
}
