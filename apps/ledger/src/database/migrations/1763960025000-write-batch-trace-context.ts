import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/** ledger_write_batch stores each item's trace context with its events (sql/ledger-write-batch-v2.sql). */
export class WriteBatchTraceContext1763960025000 implements MigrationInterface {
  name = 'WriteBatchTraceContext1763960025000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch-v2.sql'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch-v1.sql'));
  }
}
