import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/** ledger_write_batch stores each item's trace context with its events (applies the current sql/ledger-write-batch.sql). */
export class WriteBatchTraceContext1763960025000 implements MigrationInterface {
  name = 'WriteBatchTraceContext1763960025000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch.sql'));
  }

  /** The body this replaced is not kept (only in git history): going down leaves the current one. */
  async down(): Promise<void> {
    // Nothing to undo: see above.
  }
}
