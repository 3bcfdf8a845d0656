import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

/**
 * The closed-period backstop on postings checks each inserting statement once, over all its new
 * rows (a transition table), instead of running once per posting: a batch of transfers inserts
 * many postings in one statement. Same refusal, same error code.
 */
export class ClosedPeriodCheckPerStatement1763810000000 implements MigrationInterface {
  name = 'ClosedPeriodCheckPerStatement1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER postings_closed_period ON postings`);
    await q.query(`DROP FUNCTION postings_refuse_closed_period()`);
    await q.query(sqlFile('postings-refuse-closed-period.sql'));
    await q.query(`CREATE TRIGGER postings_closed_period AFTER INSERT ON postings
      REFERENCING NEW TABLE AS new_postings
      FOR EACH STATEMENT EXECUTE FUNCTION postings_refuse_closed_period()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER postings_closed_period ON postings`);
    await q.query(`DROP FUNCTION postings_refuse_closed_period()`);
    await q.query(`
      CREATE FUNCTION postings_refuse_closed_period() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM period_closes c WHERE c.ledger_id = NEW.ledger_id AND c.reopened_at IS NULL
                   AND NEW.value_date >= c.period_start AND NEW.value_date < c.period_end) THEN
          RAISE EXCEPTION 'value_date % is inside a closed period', NEW.value_date USING ERRCODE = 'BK001';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER postings_closed_period BEFORE INSERT ON postings
      FOR EACH ROW EXECUTE FUNCTION postings_refuse_closed_period()`);
  }
}
