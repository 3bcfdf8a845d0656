import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The durable events log. Rows are written in the transaction of the change they report; `seq`
 * orders them and `relayed_at` marks the ones the webhook relay has already fanned out.
 */
export class Events1763720000000 implements MigrationInterface {
  name = 'Events1763720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        organization_id uuid NOT NULL,
        ledger_id uuid NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        type text NOT NULL CHECK (length(type) BETWEEN 1 AND 200),
        resource_id text,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        relayed_at timestamptz,
        FOREIGN KEY (ledger_id, organization_id, mode) REFERENCES ledgers (id, organization_id, mode)
      )`);
    await q.query(`CREATE INDEX events_ledger_seq_idx ON events (ledger_id, organization_id, mode, seq DESC)`);
    await q.query(`CREATE INDEX events_ledger_type_seq_idx ON events (ledger_id, organization_id, mode, type, seq DESC)`);
    // Keeps the relay's scan proportional to the backlog, not to the whole log.
    await q.query(`CREATE INDEX events_unrelayed_idx ON events (seq) WHERE relayed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE events`);
  }
}
