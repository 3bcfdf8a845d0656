import { MigrationInterface, QueryRunner } from 'typeorm';

/** A suspended organization is read-only: its writes answer 403 tenant_suspended. */
export class TenantSuspension1763710001000 implements MigrationInterface {
  name = 'TenantSuspension1763710001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations ADD COLUMN suspended_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations DROP COLUMN suspended_at`);
  }
}
