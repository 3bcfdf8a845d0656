import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each cosigning key starts signing. A rotated key is published at once but signs only from
 * `activates_at`; until then the key before it keeps signing. Keys created before this signed from
 * their creation.
 */
export class CosignKeyActivation1763910000000 implements MigrationInterface {
  name = 'CosignKeyActivation1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cosign_keys ADD COLUMN activates_at timestamptz`);
    await q.query(`UPDATE cosign_keys SET activates_at = created_at`);
    await q.query(`ALTER TABLE cosign_keys ALTER COLUMN activates_at SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cosign_keys DROP COLUMN activates_at`);
  }
}
