import autocannon from 'autocannon';
import { Client } from 'pg';
import { startAppProcess } from '@bursar/testing';
import { overReplicas, redisUrl, report, scratchDatabase } from './bench-kit';

/*
 * `pnpm bench:floor`: what the fixed stack (Nest on Express, ioredis, pg, durable commits) can do
 * on this machine before any of the services' own work, so the speed targets can be read against
 * it. floor-app.ts does the least a transfer or a decision needs (see there), in a child process
 * loaded by autocannon from this one, as the service benchmarks are. BENCH_SECONDS (default 10),
 * BENCH_REPLICAS (default 1; each replica gets its share of the connections).
 */

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const replicas = Number(process.env.BENCH_REPLICAS ?? 1);

async function load(bases: string[], path: string, connections: number, title: string, body?: () => string): Promise<void> {
  // Fewer clients than replicas leaves the extra replicas idle.
  const used = bases.slice(0, connections);
  const results = await Promise.all(
    used.map((base, r) =>
      autocannon({
        url: base + path,
        connections: Math.floor(connections / used.length) + (r < connections % used.length ? 1 : 0),
        duration: seconds,
        ...(body && {
          method: 'POST',
          requests: [{ setupRequest: (req) => ({ ...req, headers: { 'Content-Type': 'application/json' }, body: body() }) }],
        }),
      }),
    ),
  );
  const { sum, worst } = overReplicas(results);
  report(title + (used.length > 1 ? ` [${used.length} replicas]` : ''), {
    'requests/s': sum((r) => r.requests.average),
    'p50 ms': worst((r) => r.latency.p50),
    'p99 ms': worst((r) => r.latency.p99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors + r.timeouts),
  });
}

async function main(): Promise<void> {
  const db = await scratchDatabase('floor');
  const pg = new Client({ connectionString: db.url });
  const apps: Awaited<ReturnType<typeof startAppProcess>>[] = [];
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
    const bases = apps.map((app) => `http://127.0.0.1:${app.port}`);
    const pair = () => {
      const i = Math.floor(Math.random() * 50);
      const j = (i + 1 + Math.floor(Math.random() * 49)) % 50;
      return JSON.stringify({ from: `acct:${i}`, to: `acct:${j}`, amount: 125 });
    };
    await load(bases, '/bare', 32, 'GET, no work, 32 connections');
    const decision = () => JSON.stringify({ agent: `acct:${Math.floor(Math.random() * 50)}`, amount: 125 });
    await load(bases, '/decide', 32, 'decision skeleton (Redis hit, one read, one audit insert), 32 connections', decision);
    await load(bases, '/decide-batched', 32, 'the same with reads and inserts batched, 32 connections', decision);
    for (const clients of [1, 4]) {
      await load(bases, '/transfer', clients, `transfer skeleton (Redis hit, BEGIN + lock, write, COMMIT), ${clients} client(s)`, pair);
    }
  } finally {
    await Promise.all(apps.map((app) => app.stop()));
    await pg.end();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
