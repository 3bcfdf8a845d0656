import { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations own ledgers (each test or live) and OAuth clients bound to one mode. */
export class TenancyAndClients1763700000000 implements MigrationInterface {
  name = 'TenancyAndClients1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        plan text NOT NULL DEFAULT 'free',
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ledgers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        description text,
        metadata jsonb NOT NULL DEFAULT '{}',
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- Target of composite foreign keys that pin a row to its ledger's tenant and mode.
        UNIQUE (id, organization_id, mode)
      )`);
    await q.query(`CREATE INDEX ledgers_organization_mode_idx ON ledgers (organization_id, mode, created_at)`);
    await q.query(`
      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id),
        ledger_id uuid,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        scopes text[] NOT NULL,
        secret_digest text NOT NULL,
        previous_secret_digest text,
        previous_secret_expires_at timestamptz,
        disabled_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- A client can only be pinned to a ledger of its own organization and mode.
        FOREIGN KEY (ledger_id, organization_id, mode) REFERENCES ledgers (id, organization_id, mode),
        CHECK ((previous_secret_digest IS NULL) = (previous_secret_expires_at IS NULL))
      )`);
    await q.query(`CREATE INDEX oauth_clients_organization_mode_idx ON oauth_clients (organization_id, mode, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth_clients`);
    await q.query(`DROP TABLE ledgers`);
    await q.query(`DROP TABLE organizations`);
  }
}
