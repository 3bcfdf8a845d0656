import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * The write path of new transactions as one function call, `ledger_write_batch(batch jsonb)`, in its
 * first version (sql/ledger-write-batch-v1.sql; what it does: sql/ledger-write-batch.sql), and the
 * available-balance rule it checks overdrafts with.
 */
export class WriteBatchFunction1763890000000 implements MigrationInterface {
  name = 'WriteBatchFunction1763890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION books_available(type text, posted_debits numeric, posted_credits numeric,
        pending_debits numeric, pending_credits numeric) RETURNS numeric
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type IN ('asset', 'expense')
          THEN posted_debits - posted_credits - pending_credits
          ELSE posted_credits - posted_debits - pending_debits END
      $$`);
    await q.query(sqlFile('ledger-write-batch-v1.sql'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION ledger_write_batch(jsonb)`);
    await q.query(`DROP FUNCTION books_available(text, numeric, numeric, numeric, numeric)`);
  }
}
