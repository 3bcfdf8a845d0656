import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * ledger_write_batch becomes the one books engine: dry runs, atomic batches, reversals' voids and
 * commits of pending legs are judged and written by it too, and a used transaction key is judged
 * first (see sql/ledger-write-batch.sql).
 */
export class BooksEngine1763960030000 implements MigrationInterface {
  name = 'BooksEngine1763960030000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('ledger-write-batch.sql'));
  }

  /** The body this replaced is not kept (only in git history): going down leaves the current one. */
  async down(): Promise<void> {
    // Nothing to undo: see above.
  }
}
