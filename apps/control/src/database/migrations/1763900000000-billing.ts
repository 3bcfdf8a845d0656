import { MigrationInterface, QueryRunner } from 'typeorm';

/** Billing: each workspace's plan and provider subscription, checkouts started, provider events applied. */
export class Billing1763900000000 implements MigrationInterface {
  name = 'Billing1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE billing_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL UNIQUE REFERENCES workspaces (id),
        plan text NOT NULL DEFAULT 'sandbox' CHECK (plan IN ('sandbox', 'build', 'growth', 'scale', 'enterprise')),
        customer_id text,
        subscription_id text UNIQUE,
        subscription_status text,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        current_period_start timestamptz,
        current_period_end timestamptz,
        synced_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX billing_accounts_by_customer ON billing_accounts (customer_id)`);
    await q.query(`
      CREATE TABLE billing_checkouts (
        id text PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id),
        kind text NOT NULL CHECK (kind IN ('subscription', 'pack')),
        plan text,
        units integer CHECK (units BETWEEN 1 AND 200),
        volume_cents bigint NOT NULL DEFAULT 0 CHECK (volume_cents >= 0),
        status text NOT NULL CHECK (status IN ('open', 'completed')),
        started_by_sub text NOT NULL,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX billing_checkouts_completed_packs ON billing_checkouts (workspace_id, completed_at) WHERE kind = 'pack'`);
    await q.query(`
      CREATE TABLE billing_events (
        id text PRIMARY KEY,
        type text NOT NULL,
        workspace_id uuid REFERENCES workspaces (id),
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE billing_events`);
    await q.query(`DROP TABLE billing_checkouts`);
    await q.query(`DROP TABLE billing_accounts`);
  }
}
