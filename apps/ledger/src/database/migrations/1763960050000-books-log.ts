import { MigrationInterface, QueryRunner } from 'typeorm';
import { verifiableLogTablesSql } from '@bursar/service-kit';
import { sqlFile } from '../sql/sql-file';

/**
 * Each ledger's books as a verifiable Merkle log (docs/verifiable-records.md): the log tables, the
 * changes they are sealed from, and the keys that sign checkpoints. A plain period close writes no
 * event, so its row carries its own place in commit order, numbered from the events' sequence so
 * that one (xid, seq) order covers both.
 */
export class BooksLog1763960050000 implements MigrationInterface {
  name = 'BooksLog1763960050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(verifiableLogTablesSql());
    await q.query(`ALTER TABLE period_closes
      ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
      ADD COLUMN log_seq bigint NOT NULL DEFAULT nextval(pg_get_serial_sequence('events', 'seq'))`);
    await q.query(`CREATE INDEX period_closes_position_idx ON period_closes (xid, log_seq)`);
    await q.query(`CREATE INDEX events_log_position_idx ON events (xid, seq) WHERE type IN ('transaction.created', 'transaction.reversal_created',
      'transaction.refund_created', 'transaction.committed', 'transaction.reversed', 'transaction.updated', 'period.reopened', 'account.created',
      'account.closed', 'account.classification_changed', 'reserve.swept', 'reserve.released', 'reserve.clawed')`);
    await q.query(sqlFile('ledger-log-changes.sql'));
    // The keys that sign checkpoints, as control keeps its cosigning keys (SigningKeyRing).
    await q.query(`CREATE TABLE log_signing_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kid text NOT NULL UNIQUE,
      public_jwk jsonb NOT NULL,
      private_jwk_sealed text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'retired')),
      activates_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      retired_at timestamptz
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE log_signing_keys`);
    await q.query(`DROP VIEW ledger_log_changes`);
    await q.query(`DROP FUNCTION ledger_log_time(timestamptz)`);
    await q.query(`DROP INDEX events_log_position_idx`);
    await q.query(`ALTER TABLE period_closes DROP COLUMN xid, DROP COLUMN log_seq`);
    await q.query(`DROP TABLE log_checkpoints, log_sealer, log_heads, log_entries`);
  }
}
