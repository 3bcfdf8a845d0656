import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exports: a request to write a ledger's resources as NDJSON files, worked in the background.
 * `attempts` is also the claim's fencing token: only the worker holding the latest claim may finish
 * the row, so a worker presumed dead that wakes up late cannot overwrite its successor's result.
 */
export class Exports1763865000000 implements MigrationInterface {
  name = 'Exports1763865000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE exports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ledger_id uuid NOT NULL REFERENCES ledgers (id),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'ready', 'failed')),
        format text NOT NULL CHECK (format IN ('ndjson')),
        resources text[] NOT NULL CHECK (cardinality(resources) > 0),
        error_message text,
        attempts integer NOT NULL DEFAULT 0,
        started_at timestamptz,
        heartbeat_at timestamptz,
        completed_at timestamptz,
        expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((status = 'ready') = (expires_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX exports_ledger_created_idx ON exports (ledger_id, created_at DESC, id DESC)`);
    // The worker looks for pending exports and running ones whose heartbeat stopped.
    await q.query(`CREATE INDEX exports_active_idx ON exports (created_at) WHERE status IN ('pending', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE exports`);
  }
}
