import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders the events log by when rows can become visible, not by when `seq` was drawn. `xid` is the
 * writing transaction's id: the tail serves only rows whose transaction is older than every
 * transaction still in flight, and orders them by (xid, seq), so a late commit can never land
 * behind a position a reader has already passed. Rows written before this migration all
 * committed long ago: they get xid 0 and keep their `seq` order ahead of every new row.
 */
export class EventsCommitOrder1763845000000 implements MigrationInterface {
  name = 'EventsCommitOrder1763845000000';

  async up(q: QueryRunner): Promise<void> {
    // A constant default fills existing rows without rewriting the table; new rows take their transaction's id.
    await q.query(`ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0'`);
    await q.query(`ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id()`);
    // Replace the seq-ordered indexes (same count, so writes maintain no more than before).
    await q.query(`DROP INDEX events_ledger_seq_idx`);
    await q.query(`DROP INDEX events_ledger_type_seq_idx`);
    await q.query(`CREATE INDEX events_ledger_position_idx ON events (ledger_id, organization_id, mode, xid, seq)`);
    await q.query(`CREATE INDEX events_ledger_type_position_idx ON events (ledger_id, organization_id, mode, type, xid, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX events_ledger_type_position_idx`);
    await q.query(`DROP INDEX events_ledger_position_idx`);
    await q.query(`CREATE INDEX events_ledger_seq_idx ON events (ledger_id, organization_id, mode, seq DESC)`);
    await q.query(`CREATE INDEX events_ledger_type_seq_idx ON events (ledger_id, organization_id, mode, type, seq DESC)`);
    await q.query(`ALTER TABLE events DROP COLUMN xid`);
  }
}
