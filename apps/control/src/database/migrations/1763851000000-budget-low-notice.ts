import { MigrationInterface, QueryRunner } from 'typeorm';

/** When `budget.low` went out for a budget: it fires once, on the first executed payment that leaves 10% or less. */
export class BudgetLowNotice1763851000000 implements MigrationInterface {
  name = 'BudgetLowNotice1763851000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE budgets ADD COLUMN low_notified_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE budgets DROP COLUMN low_notified_at`);
  }
}
