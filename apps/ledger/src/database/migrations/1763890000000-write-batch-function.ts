import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * The write path of new transactions as one function call, `ledger_write_batch(batch jsonb)`, and the
 * available-balance rule it checks overdrafts with. The function's body is the current one of
 * sql/ledger-write-batch.sql (see that file: a function has one body in the repository; earlier ones are
 * in git history).
 */
export class WriteBatchFunction1763890000000 implements MigrationInterface {
  name = 'WriteBatchFunction1763890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('books-available.sql'));
    await q.query(sqlFile('ledger-write-batch.sql'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION ledger_write_batch(jsonb)`);
    await q.query(`DROP FUNCTION books_available(text, numeric, numeric, numeric, numeric)`);
  }
}
