import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { generateSecretKey } from '@bursar/crypto';
import { startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, overReplicas, percentile, redisUrl, report, runScript, scratchDatabase, sleep, BENCH_SERVICE_NODE, BENCH_CPU_PROFILE } from './bench-kit';

/*
 * `pnpm bench:ledger`: the real ledger service on a scratch database, loaded with two-posting
 * transfers (each with its own Idempotency-Key) by autocannon:
 *   1, 4 and 20 connections over 50 accounts, then 20 connections over 2 hot accounts,
 * after a baseline of a route that touches no database.
 * BENCH_SECONDS (default 10) per scenario; BENCH_ONLY (comma list of baseline,1,4,20,hot; default all);
 * BENCH_REPLICAS (default 1): service processes on one database, each scenario's clients shared out
 * between them (latencies are the worst replica's); replica r > 0 writes its profile to <file>.r. Each scenario also reports the cost of a transfer that
 * does not depend on how loaded the machine is: the service's database round trips and the
 * database transactions (commits, read-only ones included) and the service's CPU time per transfer, and how busy autocannon kept this process (to show it is not
 * the bottleneck). BENCH_CPU_PROF=<file.cpuprofile> writes a CPU profile of the service there.
 * Beside each transfer scenario runs its in-database twin, in alternating slices (BENCH_SLICES,
 * default 3, so both see the same machine load): as many `pg` connections as clients,
 * each calling the service's own write function (ledger_write_batch) with one transfer per call
 * (the same accounts, an Idempotency-Key row and an event of the sizes the service writes), no
 * HTTP and no service; the ratio HTTP / in-database of the same run is the headline figure.
 * Afterwards the books are checked: every 2xx (and every in-database write) wrote exactly one
 * transaction, every currency nets to zero and every balance row equals the sum of its postings.
 */

const settings = toolSettings({
  command: 'pnpm bench:ledger',
  summary: 'The real ledger service on a scratch database, loaded with two-posting transfers by autocannon, each scenario beside\nits in-database twin; the books are checked afterwards.',
  env: {
    BENCH_SECONDS: { help: 'seconds per scenario', default: '10' },
    BENCH_SLICES: { help: 'alternating HTTP and in-database slices per scenario', default: '3' },
    BENCH_ONLY: { help: 'comma list of baseline, 1, 4, 20, hot (default all)' },
    BENCH_REPLICAS: { help: 'service processes on one database, each scenario\'s clients shared out between them', default: '1' },
    ...BENCH_SERVICE_NODE,
    ...BENCH_CPU_PROFILE,
    ...BENCH_SERVERS,
  },
});
const seconds = Number(settings.BENCH_SECONDS);
/** A scenario alternates HTTP and in-database slices, so both see the same machine load (others' runs come and go). */
const slices = Math.max(1, Number(settings.BENCH_SLICES));
const only = settings.BENCH_ONLY?.split(',');
const runs = (name: string) => !only || only.includes(name);
const replicas = Number(settings.BENCH_REPLICAS);
const roundTripsFile = (replica: number) => path.join(tmpdir(), `ledger-bench-round-trips-${process.pid}-${replica}`);

/** Counters that make a run's per-transfer cost visible: service round trips, database commits, bench CPU. */
async function costCounters(pg: Client) {
  // Postgres publishes its statistics up to a second late.
  await sleep(1100);
  const [{ commits }] = (
    await pg.query(`SELECT (xact_commit + xact_rollback)::int AS commits FROM pg_stat_database WHERE datname = current_database()`)
  ).rows;
  let roundTrips = 0;
  let serviceCpuMicros = 0;
  for (let r = 0; r < replicas; r++) {
    try {
      const [trips, cpu] = readFileSync(roundTripsFile(r), 'utf8').split(' ').map(Number);
      roundTrips += trips;
      serviceCpuMicros += cpu;
    } catch {
      // A service that has not written its first count yet.
      roundTrips = serviceCpuMicros = NaN;
    }
  }
  return { commits: Number(commits), roundTrips, serviceCpuMicros, cpu: process.cpuUsage(), at: Date.now() };
}

type Costs = Awaited<ReturnType<typeof costCounters>>;

/** What the counters moved by between two readings; slices add up. */
interface CostDelta {
  roundTrips: number;
  commits: number;
  serviceCpuMicros: number;
  benchCpuMicros: number;
  ms: number;
}

const NO_COST: CostDelta = { roundTrips: 0, commits: 0, serviceCpuMicros: 0, benchCpuMicros: 0, ms: 0 };

function costBetween(before: Costs, after: Costs, sum: CostDelta): CostDelta {
  return {
    roundTrips: sum.roundTrips + after.roundTrips - before.roundTrips,
    commits: sum.commits + after.commits - before.commits,
    serviceCpuMicros: sum.serviceCpuMicros + after.serviceCpuMicros - before.serviceCpuMicros,
    benchCpuMicros: sum.benchCpuMicros + after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system,
    ms: sum.ms + after.at - before.at,
  };
}

function perTransfer(cost: CostDelta, transfers: number) {
  return {
    'db round trips/transfer': cost.roundTrips / transfers,
    'db transactions/transfer': cost.commits / transfers,
    // CPU time per transfer is what bounds a single Node process, whatever else the machine runs.
    'service CPU ms/transfer': cost.serviceCpuMicros / 1000 / transfers,
    'bench process CPU %': (100 * cost.benchCpuMicros) / 1000 / cost.ms,
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

/**
 * Two distinct accounts at random: transfers in flight share an account only as often as chance
 * has it over 50 accounts (consecutive picks would make neighbours collide), always over 2.
 */
function pickPair(accounts: string[]): [from: string, to: string] {
  const i = Math.floor(Math.random() * accounts.length);
  return [accounts[i], accounts[(i + 1 + Math.floor(Math.random() * (accounts.length - 1))) % accounts.length]];
}

function runOne(baseUrl: string, token: string, scenario: Scenario, duration: number): Promise<autocannon.Result> {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  const { accounts } = scenario;
  return autocannon({
    url: baseUrl,
    connections: scenario.connections,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/ledger/v1/transactions',
        setupRequest: (req) => {
          n += 1;
          const [from, to] = pickPair(accounts);
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

/**
 * Runs the scenario against every replica at once, its connections shared out between them;
 * counts are summed and latencies are the worst replica's.
 */
async function run(baseUrls: string[], token: string, scenario: Scenario, duration = seconds) {
  const shares = baseUrls
    .map((url, r) => ({ url, connections: Math.floor(scenario.connections / baseUrls.length) + (r < scenario.connections % baseUrls.length ? 1 : 0) }))
    .filter((share) => share.connections > 0);
  const results = await Promise.all(shares.map((share) => runOne(share.url, token, { ...scenario, connections: share.connections }, duration)));
  const { sum, worst } = overReplicas(results);
  return {
    ok: sum((r) => r['2xx']),
    duration: worst((r) => r.duration),
    p50: worst((r) => r.latency.p50),
    p99: worst((r) => r.latency.p99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

/** What an in-database transfer writes besides its rows, copied from one the service wrote: its event's data and its stored answer. */
interface WriteTemplate {
  organizationId: string;
  ledgerId: string;
  eventData: object;
  client: string;
  route: string;
  fingerprint: string;
  sealedBody: string;
}

async function writeTemplate(pg: Client, organizationId: string, ledgerId: string): Promise<WriteTemplate> {
  const [event] = (await pg.query(`SELECT data FROM events WHERE type = 'transaction.created' ORDER BY seq DESC LIMIT 1`)).rows;
  const [key] = (
    await pg.query(`SELECT client_id, route, fingerprint, response_body FROM idempotency_keys WHERE state = 'completed' ORDER BY created_at DESC LIMIT 1`)
  ).rows;
  return {
    organizationId,
    ledgerId,
    eventData: event.data,
    client: key.client_id,
    route: key.route,
    fingerprint: key.fingerprint,
    sealedBody: key.response_body,
  };
}

const WRITE_BATCH = { name: 'bench_write_batch', text: 'SELECT ledger_write_batch($1::jsonb) AS results' };
const RESERVE_IDS = {
  name: 'bench_reserve_ids',
  text: `SELECT ARRAY(SELECT nextval(pg_get_serial_sequence('postings', 'id'))::text FROM generate_series(1, 256)) AS ids`,
};

/**
 * The in-database twin of a scenario: `connections` sessions calling ledger_write_batch with one
 * transfer per call (posting ids drawn 256 at a time, as the service does) until the clock stops.
 */
async function runInDatabase(url: string, template: WriteTemplate, scenario: Scenario, duration: number) {
  const prefix = randomBytes(4).toString('hex');
  const latencies: number[] = [];
  let n = 0;
  let refused = 0;
  const started = Date.now();
  const deadline = started + duration * 1000;
  const session = async (): Promise<number> => {
    const db = new Client({ connectionString: url });
    await db.connect();
    let ids: string[] = [];
    let ok = 0;
    try {
      while (Date.now() < deadline) {
        if (ids.length < 2) ids = (await db.query({ ...RESERVE_IDS, values: [] })).rows[0].ids;
        const [from, to] = pickPair(scenario.accounts);
        const key = `${prefix}-${(n += 1)}`;
        const id = randomUUID();
        const now = new Date();
        const batch = {
          ledger: template.ledgerId,
          organization: template.organizationId,
          mode: 'test',
          stale_before: new Date(now.getTime() - 60_000),
          expired_before: null,
          accounts: [from, to],
          items: [
            {
              id,
              key,
              kind: 'standard',
              reverses: null,
              refund_amount: null,
              refund_currency: null,
              metadata: {},
              value_date: now,
              created_at: now,
              postings: [
                { id: ids.shift(), account: to, amount: '125', currency: 'USD', direction: 'debit', pending: false, tags: {} },
                { id: ids.shift(), account: from, amount: '125', currency: 'USD', direction: 'credit', pending: false, tags: {} },
              ],
              refs: [],
              conditions: [],
              events: [{ type: 'transaction.created', resource_id: id, data: template.eventData }],
              idem: {
                organization: template.organizationId,
                mode: 'test',
                client: template.client,
                route: template.route,
                key,
                fingerprint: template.fingerprint,
                status: 201,
                body: template.sealedBody,
              },
              touched: false,
            },
          ],
        };
        const at = performance.now();
        const { rows } = await db.query({ ...WRITE_BATCH, values: [JSON.stringify(batch)] });
        latencies.push(performance.now() - at);
        if (rows[0].results[0].ok) ok += 1;
        else refused += 1;
      }
    } finally {
      await db.end();
    }
    return ok;
  };
  const oks = await Promise.all(Array.from({ length: scenario.connections }, session));
  const ok = oks.reduce((a, b) => a + b, 0);
  return { ok, refused, duration: (Date.now() - started) / 1000, latencies };
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
    // Replicas behind one address: each accepts the tokens the others issue.
    LEDGER_PUBLIC_URL: 'http://ledger.bench.invalid',
  };
  // Only the service counts its round trips (the admin scripts run beside it).
  const serviceEnv = (replica: number) => ({
    ...env,
    BENCH_ROUND_TRIPS_FILE: roundTripsFile(replica),
    NODE_OPTIONS: `--require ${path.join(__dirname, 'service-costs.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    ...(settings.BENCH_CPU_PROF && { BENCH_CPU_PROF_FILE: settings.BENCH_CPU_PROF + (replica ? `.${replica}` : '') }),
  });
  const pg = new Client({ connectionString: db.url });
  const apps: Awaited<ReturnType<typeof startAppProcess>>[] = [];
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
    for (let r = 0; r < replicas; r++) apps.push(await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', serviceEnv(r)));
    const baseUrls = apps.map((app) => `http://127.0.0.1:${app.port}`);
    const [baseUrl] = baseUrls;
    const { token, ledgerId, organizationId } = await ledgerBenchClient(env, baseUrl);
    const spread = Array.from({ length: 50 }, (_, i) => `acct:${i}`);
    const hot = ['hot:a', 'hot:b'];
    await createAccounts(baseUrl, token, [...spread, ...hot]);
    // Warm the JIT and the connection pool before measuring.
    await run(baseUrls, token, { name: 'warm-up', connections: 4 * replicas, accounts: spread });
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
    const template = await writeTemplate(pg, organizationId, ledgerId);
    const ratios: Record<string, string> = {};
    for (const scenario of scenarios) {
      const http = { ok: 0, duration: 0, p50: [] as number[], p99: 0, non2xx: 0, errors: 0, cost: NO_COST };
      const direct = { ok: 0, refused: 0, duration: 0, latencies: [] as number[], cpuMicros: 0 };
      for (let slice = 0; slice < slices; slice++) {
        const before = await costCounters(pg);
        const result = await run(baseUrls, token, scenario, seconds / slices);
        http.cost = costBetween(before, await costCounters(pg), http.cost);
        Object.assign(http, {
          ok: http.ok + result.ok,
          duration: http.duration + result.duration,
          p99: Math.max(http.p99, result.p99),
          non2xx: http.non2xx + result.non2xx,
          errors: http.errors + result.errors,
        });
        http.p50.push(result.p50);
        const cpuBefore = process.cpuUsage();
        const inDb = await runInDatabase(db.url, template, scenario, seconds / slices);
        const cpu = process.cpuUsage(cpuBefore);
        Object.assign(direct, {
          ok: direct.ok + inDb.ok,
          refused: direct.refused + inDb.refused,
          duration: direct.duration + inDb.duration,
          cpuMicros: direct.cpuMicros + cpu.user + cpu.system,
        });
        direct.latencies.push(...inDb.latencies);
      }
      succeeded += http.ok + direct.ok;
      const httpRate = http.ok / http.duration;
      const directRate = direct.ok / direct.duration;
      report(`ledger transfers: ${scenario.name}${replicas > 1 ? ` [${replicas} replicas]` : ''}`, {
        'transactions/s': httpRate,
        'p50 ms': percentile(http.p50, 50),
        'p99 ms': http.p99,
        non2xx: http.non2xx,
        errors: http.errors,
        ...perTransfer(http.cost, http.ok),
      });
      report(`in-database: ${scenario.name}, one transfer per ledger_write_batch call`, {
        'transactions/s': directRate,
        'p50 ms': percentile(direct.latencies, 50),
        'p99 ms': percentile(direct.latencies, 99),
        refused: direct.refused,
        'bench process CPU %': (100 * direct.cpuMicros) / 1000 / (direct.duration * 1000),
        'HTTP / in-database': (httpRate / directRate).toFixed(2),
      });
      ratios[scenario.name] = `${(httpRate / directRate).toFixed(2)}x (${Math.round(httpRate)} / ${Math.round(directRate)} transactions/s)`;
    }
    if (scenarios.length > 0) report('HTTP / in-database, same run', ratios);
    const inFlight = slices * scenarios.reduce((sum, s) => sum + s.connections, 0) + (afterWarmUp > 0 ? 4 * replicas : 0);
    report('books after the run', { check: await checkBooks(pg, ledgerId, succeeded, inFlight), synchronous_commit: durability });
  } finally {
    await pg.end().catch(() => undefined);
    await Promise.all(apps.map((app) => app.stop()));
    await db.drop();
    for (let r = 0; r < replicas; r++) rmSync(roundTripsFile(r), { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
