import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A backtest change names its intent instead of copying it: the intent's request and recorded
 * decision never change after insert, so the change keeps only what the draft decided and the list
 * joins the rest from `intents`. A 1,000,000-decision backtest wrote about 1.5 KB of copies per change.
 * What the draft decided is stored as `json`: it is only ever read back whole, and turning each
 * change's text into `jsonb` was half of the write's time.
 */
export class BacktestChangesNameIntents1764100000000 implements MigrationInterface {
  name = 'BacktestChangesNameIntents1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE policy_backtest_changes
        DROP COLUMN kind, DROP COLUMN agent_id, DROP COLUMN action_type, DROP COLUMN resource,
        DROP COLUMN amount_cents, DROP COLUMN currency, DROP COLUMN requested_at, DROP COLUMN original,
        ALTER COLUMN replayed TYPE json USING replayed::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE policy_backtest_changes
        ALTER COLUMN replayed TYPE jsonb USING replayed::jsonb,
        ADD COLUMN kind text, ADD COLUMN agent_id uuid, ADD COLUMN action_type text, ADD COLUMN resource text,
        ADD COLUMN amount_cents bigint, ADD COLUMN currency text, ADD COLUMN requested_at timestamptz, ADD COLUMN original jsonb`);
    await q.query(`
      UPDATE policy_backtest_changes c
         SET kind = i.kind, agent_id = i.agent_id, action_type = i.action_type, resource = i.resource, amount_cents = i.amount_cents,
             currency = i.currency, requested_at = i.created_at, original = i.decision - 'policy_snapshot'
        FROM intents i WHERE i.id = c.intent_id`);
    for (const column of ['kind', 'agent_id', 'action_type', 'amount_cents', 'currency', 'requested_at', 'original']) {
      await q.query(`ALTER TABLE policy_backtest_changes ALTER COLUMN ${column} SET NOT NULL`);
    }
  }
}
