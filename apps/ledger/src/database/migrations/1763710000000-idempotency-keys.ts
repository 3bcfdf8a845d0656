import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per idempotency key a client used on a write route: claimed before the write runs, then
 * holding the response to replay. The primary key is the scope, so parallel retries race on it.
 */
export class IdempotencyKeys1763710000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        organization_id uuid NOT NULL REFERENCES organizations (id),
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        client_id text NOT NULL,
        route text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
        locked_at timestamptz NOT NULL DEFAULT now(),
        response_status integer,
        -- SecretBox-sealed JSON: a replayed body may hold a secret shown once (a new client's).
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        PRIMARY KEY (organization_id, mode, client_id, route, key),
        CHECK ((state = 'completed') = (completed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_completed_idx ON idempotency_keys (completed_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
