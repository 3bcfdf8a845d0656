import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { generateSecretKey } from '@bursar/crypto';
import { startAppProcess } from '@bursar/testing';
import { ledgerBenchClient, redisUrl, report, runScript, scratchDatabase, sleep } from './bench-kit';

/*
 * `pnpm bench:ledger`: the real ledger service on a scratch database, loaded with two-posting
 * transfers (each with its own Idempotency-Key) by autocannon:
 *   1, 4 and 20 connections over 50 accounts, then 20 connections over 2 hot accounts,
 * after a baseline of a route that touches no database.
 * BENCH_SECONDS (default 10) per scenario; BENCH_ONLY (comma list of baseline,1,4,20,hot; default all). Each scenario also reports the cost of a transfer that
 * does not depend on how loaded the machine is: the service's database round trips and the
 * database transactions (commits, read-only ones included) and the service's CPU time per transfer, and how busy autocannon kept this process (to show it is not
 * the bottleneck). BENCH_CPU_PROF=<file.cpuprofile> writes a CPU profile of the service there.
 * Afterwards the books are checked: every 2xx wrote exactly one transaction, every currency nets
 * to zero and every balance row equals the sum of its postings.
 */

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const only = process.env.BENCH_ONLY?.split(',');
const runs = (name: string) => !only || only.includes(name);
const roundTripsFile = path.join(tmpdir(), `ledger-bench-round-trips-${process.pid}`);

/** Counters that make a run's per-transfer cost visible: service round trips, database commits, bench CPU. */
async function costCounters(pg: Client) {
  // Postgres publishes its statistics up to a second late.
  await sleep(1100);
  const [{ commits }] = (
    await pg.query(`SELECT (xact_commit + xact_rollback)::int AS commits FROM pg_stat_database WHERE datname = current_database()`)
  ).rows;
  let roundTrips = NaN;
  let serviceCpuMicros = NaN;
  try {
    [roundTrips, serviceCpuMicros] = readFileSync(roundTripsFile, 'utf8').split(' ').map(Number);
  } catch {
    // The service has not written its first count yet.
  }
  return { commits: Number(commits), roundTrips, serviceCpuMicros, cpu: process.cpuUsage(), at: Date.now() };
}

type Costs = Awaited<ReturnType<typeof costCounters>>;

function perTransfer(before: Costs, after: Costs, transfers: number) {
  const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  return {
    'db round trips/transfer': (after.roundTrips - before.roundTrips) / transfers,
    'db transactions/transfer': (after.commits - before.commits) / transfers,
    // CPU time per transfer is what bounds a single Node process, whatever else the machine runs.
    'service CPU ms/transfer': (after.serviceCpuMicros - before.serviceCpuMicros) / 1000 / transfers,
    'bench process CPU %': (100 * cpuMs) / (after.at - before.at),
  };
}

interface Scenario {
  key?: string;
  name: string;
  connections: number;
  accounts: string[];
}

async function createAccounts(baseUrl: string, token: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await fetch(`${baseUrl}/ledger/v1/accounts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id, name: id, type: 'asset', currency: 'USD' }),
    });
    if (res.status !== 201) throw new Error(`account ${id}: ${res.status} ${await res.text()}`);
  }
}

function run(baseUrl: string, token: string, scenario: Scenario): Promise<autocannon.Result> {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  const { accounts } = scenario;
  return autocannon({
    url: baseUrl,
    connections: scenario.connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/ledger/v1/transactions',
        setupRequest: (req) => {
          n += 1;
          // Two distinct accounts at random: transfers in flight share an account only as often as
          // chance has it over 50 accounts (consecutive picks would make neighbours collide), always over 2.
          const i = Math.floor(Math.random() * accounts.length);
          const from = accounts[i];
          const to = accounts[(i + 1 + Math.floor(Math.random() * (accounts.length - 1))) % accounts.length];
          return {
            ...req,
            headers: {
              Authorization: `Bearer ${token}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': `${prefix}-${n}`,
            },
            body: JSON.stringify({
              postings: [
                { account: to, amount: '125', currency: 'USD', direction: 'debit' },
                { account: from, amount: '125', currency: 'USD', direction: 'credit' },
              ],
            }),
          };
        },
      },
    ],
  });
}

/** Requests still in flight when a scenario's clock stops complete unseen, so up to this many more. */
async function checkBooks(pg: Client, ledgerId: string, expected: number, inFlight: number): Promise<string> {
  const [{ count }] = (await pg.query(`SELECT count(*)::int AS count FROM transactions WHERE ledger_id = $1`, [ledgerId])).rows;
  const { rows: unbalanced } = await pg.query(
    `SELECT currency FROM postings WHERE ledger_id = $1 GROUP BY currency
     HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
    [ledgerId],
  );
  const { rows: drift } = await pg.query(
    `SELECT b.account_id FROM account_balances b
     JOIN (SELECT account_id, sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) AS net
           FROM postings WHERE ledger_id = $1 GROUP BY account_id) s ON s.account_id = b.account_id
     WHERE b.ledger_id = $1 AND b.posted_debits - b.posted_credits <> s.net`,
    [ledgerId],
  );
  const ok = count >= expected && count <= expected + inFlight && unbalanced.length === 0 && drift.length === 0;
  return `${ok ? 'ok' : 'MISMATCH'}: ${count} transactions for ${expected} 2xx (+ up to ${inFlight} cut off), ${unbalanced.length} unbalanced currencies, ${drift.length} drifted balances`;
}

async function main(): Promise<void> {
  const db = await scratchDatabase('ledger');
  const env = {
    LEDGER_DATABASE_URL: db.url,
    LEDGER_SECRET_KEY: generateSecretKey(),
    REDIS_URL: redisUrl(),
    // The per-client rate limits would cap a single benchmark client at 20 writes/s.
    LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    LEDGER_RATE_LIMIT_READS_PER_SECOND: '1000000',
    NODE_ENV: 'production',
  };
  // Only the service counts its round trips (the admin scripts run beside it).
  const serviceEnv = {
    ...env,
    BENCH_ROUND_TRIPS_FILE: roundTripsFile,
    NODE_OPTIONS: `--require ${path.join(__dirname, 'ledger-round-trips.preload.js')}`,
    ...(process.env.BENCH_CPU_PROF && { BENCH_CPU_PROF_FILE: process.env.BENCH_CPU_PROF }),
  };
  const pg = new Client({ connectionString: db.url });
  let app: Awaited<ReturnType<typeof startAppProcess>> | undefined;
  try {
    // Scratch databases skip fsync at commit; a ledger benchmark must pay for durability.
    await pg.connect();
    await pg.query(`ALTER DATABASE "${(await pg.query('SELECT current_database() AS name')).rows[0].name}" SET synchronous_commit = on`);
    await runScript('apps/ledger/src/migrate.ts', [], env);
    // What every new session (the service's pool included) gets; the report shows it was not relaxed.
    const session = new Client({ connectionString: db.url });
    await session.connect();
    const durability = (await session.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;
    await session.end();
    app = await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', serviceEnv);
    const baseUrl = `http://127.0.0.1:${app.port}`;
    const { token, ledgerId } = await ledgerBenchClient(env, baseUrl);
    const spread = Array.from({ length: 50 }, (_, i) => `acct:${i}`);
    const hot = ['hot:a', 'hot:b'];
    await createAccounts(baseUrl, token, [...spread, ...hot]);
    // Warm the JIT and the connection pool before measuring.
    await run(baseUrl, token, { name: 'warm-up', connections: 4, accounts: spread });
    // What the machine gives a request that touches no database, for scale.
    if (runs('baseline')) {
      const base = await autocannon({ url: `${baseUrl}/.well-known/oauth-authorization-server`, connections: 4, duration: seconds });
      report('baseline: GET /.well-known/oauth-authorization-server, 4 clients', {
        'requests/s': base.requests.average,
        'p50 ms': base.latency.p50,
        'p99 ms': base.latency.p99,
      });
    }
    let succeeded = Number((await pg.query(`SELECT count(*)::int AS c FROM transactions`)).rows[0].c);
    const afterWarmUp = succeeded;
    const scenarios: Scenario[] = [
      { key: '1', name: '1 client, 50 accounts', connections: 1, accounts: spread },
      { key: '4', name: '4 clients, 50 accounts', connections: 4, accounts: spread },
      { key: '20', name: '20 clients, 50 accounts', connections: 20, accounts: spread },
      { key: 'hot', name: '20 clients, 2 hot accounts', connections: 20, accounts: hot },
    ].filter((scenario) => runs(scenario.key));
    for (const scenario of scenarios) {
      const before = await costCounters(pg);
      const result = await run(baseUrl, token, scenario);
      const after = await costCounters(pg);
      succeeded += result['2xx'];
      report(`ledger transfers: ${scenario.name}`, {
        'transactions/s': result['2xx'] / result.duration,
        'p50 ms': result.latency.p50,
        'p99 ms': result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        ...perTransfer(before, after, result['2xx']),
      });
    }
    const inFlight = scenarios.reduce((sum, s) => sum + s.connections, 0) + (afterWarmUp > 0 ? 4 : 0);
    report('books after the run', { check: await checkBooks(pg, ledgerId, succeeded, inFlight), synchronous_commit: durability });
  } finally {
    await pg.end().catch(() => undefined);
    await app?.stop();
    await db.drop();
    rmSync(roundTripsFile, { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
