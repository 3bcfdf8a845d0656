import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/** Every change to an organization row is announced, so processes caching the row drop it at once. */
export class OrganizationChanges1763800000000 implements MigrationInterface {
  name = 'OrganizationChanges1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(sqlFile('organizations-notify-change.sql'));
    await q.query(`
      CREATE TRIGGER organizations_changed AFTER UPDATE OR DELETE ON organizations
      FOR EACH ROW EXECUTE FUNCTION organizations_notify_change()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER organizations_changed ON organizations`);
    await q.query(`DROP FUNCTION organizations_notify_change()`);
  }
}
