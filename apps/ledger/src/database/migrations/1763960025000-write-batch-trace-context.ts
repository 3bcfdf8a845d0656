import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/** ledger_write_batch stores each item's trace context with its events (see sql/ledger-write-batch.sql). */
export class WriteBatchTraceContext1763960025000 implements MigrationInterface {
  name = 'WriteBatchTraceContext1763960025000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch.sql'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch-v1.sql'));
  }
}
