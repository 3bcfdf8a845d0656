import { Client } from 'pg';
import { startAppProcess } from '@bursar/testing';
import { redisUrl, scratchDatabase } from './bench-kit';

/**
 * The floor app (floor-app.ts) on its own scratch database with its tables, durable commits as the
 * services have: `pnpm bench:floor` loads it alone, `pnpm bench:control` beside control in the same
 * run, so the simulate target (a share of the decision floor) is read from one run.
 */
export async function startFloor(replicas: number): Promise<{ bases: string[]; stop(): Promise<void> }> {
  const db = await scratchDatabase('floor');
  const pg = new Client({ connectionString: db.url });
  const apps: Awaited<ReturnType<typeof startAppProcess>>[] = [];
  const stop = async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await pg.end().catch(() => undefined);
    await db.drop();
  };
  try {
    await pg.connect();
    await pg.query(`ALTER DATABASE "${(await pg.query('SELECT current_database() AS name')).rows[0].name}" SET synchronous_commit = on`);
    await pg.query(`
      CREATE TABLE floor_balances (account text PRIMARY KEY, balance bigint NOT NULL);
      CREATE TABLE floor_transactions (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE floor_postings (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        transaction_id bigint NOT NULL REFERENCES floor_transactions, account text NOT NULL REFERENCES floor_balances, amount bigint NOT NULL);
      CREATE TABLE floor_audit (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, snapshot jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
      INSERT INTO floor_balances SELECT 'acct:' || i, 0 FROM generate_series(0, 49) i;`);
    for (let r = 0; r < replicas; r++) {
      apps.push(await startAppProcess('tools/bench/src/floor-app.ts', 'FLOOR_PORT', { FLOOR_DATABASE_URL: db.url, REDIS_URL: redisUrl() }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { bases: apps.map((app) => `http://127.0.0.1:${app.port}`), stop };
}

/** A body for the floor's decision endpoints: one of its 50 accounts. */
export const floorDecision = () => JSON.stringify({ agent: `acct:${Math.floor(Math.random() * 50)}`, amount: 125 });
