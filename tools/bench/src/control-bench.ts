import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { digestSecret, generateSecretKey, randomToken } from '@bursar/crypto';
import { startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, overReplicas, redisUrl, report, runScript, scratchDatabase, sleep, BENCH_SERVICE_NODE, BENCH_CPU_PROFILE } from './bench-kit';
import { floorDecision, startFloor } from './floor-kit';

/*
 * `pnpm bench:control`: the real control service (a child process) on a scratch database, loaded
 * with autocannon. Agents, policies and budgets are inserted directly (no identity provider needed).
 *  1. allowed payment authorizations (policy evaluation, reservation, cosignature, audit row)
 *  2. action simulations
 *  3. cosignature verify (one valid token, stateful check included)
 *  4. cosignature consume (each request spends a different authorization)
 *  5. policy evaluation alone, in process, beside json-logic-js
 * A run of GET /.well-known/jwks.json first gives the machine's ceiling for any request. Right before
 * the simulations, the floor app (floor-app.ts, its own process and database) answers its batched
 * decision skeleton with as many connections, and the report gives simulate / that floor (the
 * target is a share of it, so both come from the same minutes of this shared machine).
 * BENCH_SECONDS (default 10) per HTTP run, BENCH_CONNECTIONS (default 16, the targets' figure), BENCH_AGENTS (default 16),
 * BENCH_ONLY (comma list of baseline,authorize,floor,simulate,verify,consume,evaluation; default all),
 * BENCH_NODE_OPTIONS (passed to the service processes, e.g. `-r ./some-preload.js`),
 * BENCH_CPU_PROF=<file.cpuprofile> (a CPU profile of the service; replica r > 0 writes <file>.r),
 * BENCH_REPLICAS (default 1): service processes on one database, the deployment shape of one
 * replica per core; the load is split evenly across them (latency figures are the worst replica's).
 * BENCH_AUDIT_LOG_SEAL_INTERVAL_MS (default 200, the service's default; 0 turns audit log sealing off),
 * BENCH_SERVICE_STDOUT=<file> (the service's standard output, e.g. of BENCH_NODE_OPTIONS=--trace-gc; replica r > 0 writes <file>.r).
 * The database commits synchronously (`synchronous_commit = on`): an authorization is durable when answered.
 * Each HTTP run also reports per request what depends less on how loaded the machine is: the service's CPU
 * time and Postgres round trips (counted in the service by service-costs.preload.js) and the CPU time of
 * the Postgres backends serving the bench database.
 */

const settings = toolSettings({
  command: 'pnpm bench:control',
  summary: 'The real control service on a scratch database, loaded with autocannon: payment authorizations, simulations (against\nthe floor app), cosignature verify and consume, and policy evaluation in process beside json-logic-js.',
  env: {
    BENCH_SECONDS: { help: 'seconds per HTTP run', default: '10' },
    BENCH_CONNECTIONS: { help: 'connections per HTTP run (the targets\' figure)', default: '16' },
    BENCH_AGENTS: { help: 'agents the load is spread over', default: '16' },
    BENCH_ONLY: { help: 'comma list of baseline, authorize, floor, simulate, verify, consume, evaluation (default all)' },
    BENCH_REPLICAS: { help: 'service processes on one database, the load split evenly across them', default: '1' },
    BENCH_AUDIT_LOG_SEAL_INTERVAL_MS: { help: "the service's AUDIT_LOG_SEAL_INTERVAL_MS (0: audit log sealing off, to measure its cost)", default: '200' },
    BENCH_SERVICE_STDOUT: { help: "<file>: the service's standard output once it stops (V8's --trace-gc lines go there)" },
    ...BENCH_SERVICE_NODE,
    ...BENCH_CPU_PROFILE,
    ...BENCH_SERVERS,
  },
});
const seconds = Number(settings.BENCH_SECONDS);
const connections = Number(settings.BENCH_CONNECTIONS);
const agentCount = Number(settings.BENCH_AGENTS);
const replicas = Number(settings.BENCH_REPLICAS);
const sealIntervalMs = Number(settings.BENCH_AUDIT_LOG_SEAL_INTERVAL_MS);
const only = settings.BENCH_ONLY?.split(',');
const runs = (name: string) => !only || only.includes(name);
/** USER_HZ of /proc's CPU times: 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;
const costFile = (replica: number) => path.join(tmpdir(), `control-bench-costs-${process.pid}-${replica}`);

interface BenchAgent {
  key: string;
  budgetId: string;
}

/** Workspace, agents with keys (stored as the service stores them), one policy and one large budget each. */
async function seed(pg: Client): Promise<BenchAgent[]> {
  const [{ id: workspaceId }] = (await pg.query(`INSERT INTO workspaces (name, slug) VALUES ('Bench', 'bench') RETURNING id`)).rows;
  const agents: BenchAgent[] = [];
  for (let i = 0; i < agentCount; i++) {
    const key = `krt_test_${randomToken(32)}`;
    const agentId = randomUUID();
    await pg.query(
      `INSERT INTO agents (id, workspace_id, name, status, mode, key_lookup, key_digest, api_key_prefix)
       VALUES ($1, $2, $3, 'active', 'test', $4, $5, $6)`,
      [agentId, workspaceId, `bench-${i}`, key.slice(0, 'krt_test_'.length + 16), digestSecret(key), key.slice(0, 12)],
    );
    await pg.query(
      `INSERT INTO policies (workspace_id, agent_id, status, mode, per_transaction_cap_cents, counterparty_allowlist, rules)
       VALUES ($1, $2, 'active', 'blocklist', 1000000, '{acme,globex}', $3)`,
      [workspaceId, agentId, JSON.stringify([{ id: randomUUID(), kind: 'condition', rule_name: 'no_gambling', action_types: [], effect: 'deny', when: { field: 'metadata.category', operator: 'eq', value: 'gambling' } }])],
    );
    const [{ id: budgetId }] = (
      await pg.query(
        `INSERT INTO budgets (workspace_id, agent_id, budget_cents, currency, status) VALUES ($1, $2, 1000000000000, 'USD', 'active') RETURNING id`,
        [workspaceId, agentId],
      )
    ).rows;
    agents.push({ key, budgetId });
  }
  return agents;
}

interface Run {
  title: string;
  /** Path on every replica. */
  path: string;
  method?: 'GET' | 'POST';
  expect: number;
  body(i: number): { headers: Record<string, string>; body: string };
  amount?: number;
}

/** Costs so far; `backendTicks` is per backend, as a pooled connection may close between two readings. */
interface Costs {
  roundTrips: number;
  cpuMicros: number;
  backendTicks: Map<number, number>;
}

/**
 * The service's Postgres round trips and CPU microseconds, summed over the replicas (the preload
 * writes them every 500 ms), and the CPU clock ticks of each Postgres backend serving the bench
 * database (from /proc: the server runs on this machine).
 */
async function costs(pg: Client, replicas: number): Promise<Costs> {
  await sleep(600);
  let roundTrips = 0;
  let cpuMicros = 0;
  for (let r = 0; r < replicas; r++) {
    let counts: number[] = [];
    // The preload rewrites the file in place; a read in between finds it empty.
    while (!(counts.length === 2 && counts.every(Number.isFinite))) counts = readFileSync(costFile(r), 'utf8').split(' ').map(Number);
    roundTrips += counts[0];
    cpuMicros += counts[1];
  }
  const backends = (await pg.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows as { pid: number }[];
  const backendTicks = new Map<number, number>();
  for (const { pid } of backends) {
    try {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name): user and system clock ticks.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      backendTicks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The backend exited since pg_stat_activity listed it.
    }
  }
  return { roundTrips, cpuMicros, backendTicks };
}

/** Backend CPU microseconds from `before` to `after`: backends gone by `after` are not counted (their last share is lost). */
function backendCpuMicros(before: Costs, after: Costs): number {
  let ticks = 0;
  for (const [pid, now] of after.backendTicks) ticks += now - (before.backendTicks.get(pid) ?? 0);
  return ticks * (1e6 / CLOCK_TICKS_PER_SECOND);
}

/** Runs `run` and reports it; resolves with its requests per second. */
async function load(pg: Client, bases: string[], run: Run): Promise<number> {
  const before = await costs(pg, bases.length);
  let i = 0;
  let wrong = 0;
  const results = await Promise.all(
    bases.map((base, r) =>
      autocannon({
        url: `${base}${run.path}`,
        method: run.method ?? 'POST',
        connections: Math.ceil(connections / bases.length),
        // A fixed amount is shared out exactly, so each distinct request is sent once.
        ...(run.amount ? { amount: Math.floor(run.amount / bases.length) + (r < run.amount % bases.length ? 1 : 0) } : { duration: seconds }),
        requests: [
          {
            setupRequest: (req) => {
              const { headers, body } = run.body(i++);
              return { ...req, headers: { ...req.headers, 'content-type': 'application/json', ...headers }, body };
            },
            onResponse: (status) => {
              if (status !== run.expect) wrong++;
            },
          },
        ],
      }),
    ),
  );
  const { sum, worst } = overReplicas(results);
  const after = await costs(pg, bases.length);
  const answered = sum((r) => r.requests.total);
  report(run.title + (bases.length > 1 ? ` [${bases.length} replicas]` : ''), {
    'requests/s': sum((r) => r.requests.average),
    'p50 (ms)': worst((r) => r.latency.p50),
    'p99 (ms)': worst((r) => r.latency.p99),
    requests: answered,
    [`not ${run.expect}`]: wrong + sum((r) => r.errors + r.timeouts),
    'service CPU (us/request)': (after.cpuMicros - before.cpuMicros) / answered,
    'Postgres round trips/request': ((after.roundTrips - before.roundTrips) / answered).toFixed(3),
    'Postgres backend CPU (us/request)': backendCpuMicros(before, after) / answered,
  });
  return sum((r) => r.requests.average);
}

/** The floor's batched decision skeleton at the same connections: what the stack itself gives a decision now. */
async function decisionFloor(): Promise<number> {
  const floor = await startFloor(replicas);
  try {
    const results = await Promise.all(
      floor.bases.map((base) =>
        autocannon({
          url: `${base}/decide-batched`,
          method: 'POST',
          connections: Math.ceil(connections / floor.bases.length),
          duration: seconds,
          requests: [{ setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json' }, body: floorDecision() }) }],
        }),
      ),
    );
    const { sum, worst } = overReplicas(results);
    const rate = sum((r) => r.requests.average);
    report(`Decision floor: floor-app POST /decide-batched${floor.bases.length > 1 ? ` [${floor.bases.length} replicas]` : ''}`, {
      'requests/s': rate,
      'p50 (ms)': worst((r) => r.latency.p50),
      'p99 (ms)': worst((r) => r.latency.p99),
      'not 200': sum((r) => r.non2xx + r.errors + r.timeouts),
    });
    return rate;
  } finally {
    await floor.stop();
  }
}

/** How long audit events waited to enter their workspace's log (created_at to sealed_at), once the sealer has caught up. */
async function reportSealLag(pg: Client): Promise<void> {
  const backlog = async () => Number((await pg.query(`SELECT (SELECT count(*) FROM audit_events) - (SELECT count(*) FROM log_entries) AS n`)).rows[0].n);
  for (let i = 0; i < 100 && (await backlog()) > 0; i++) await sleep(100);
  const [lag] = (
    await pg.query(`SELECT count(*)::int AS sealed,
        1000 * extract(epoch FROM percentile_cont(0.5) WITHIN GROUP (ORDER BY sealed_at - committed_at)) AS p50,
        1000 * extract(epoch FROM percentile_cont(0.99) WITHIN GROUP (ORDER BY sealed_at - committed_at)) AS p99
      FROM log_entries`)
  ).rows;
  report('Audit log sealing of those authorizations (created_at to sealed_at)', { sealed: lag.sealed, 'unsealed after 10 s': await backlog(), 'lag p50 (ms)': Number(lag.p50), 'lag p99 (ms)': Number(lag.p99) });
}

async function main(): Promise<void> {
  const db = await scratchDatabase('control');
  const env = {
    CONTROL_DATABASE_URL: db.url,
    CONTROL_SECRET_KEY: generateSecretKey(),
    REDIS_URL: redisUrl(),
    COSIGN_ISSUER: 'https://control.bursar.bench',
    AGENT_RATE_LIMIT_PER_MINUTE: '100000000',
    NODE_ENV: 'production',
    AUDIT_LOG_SEAL_INTERVAL_MS: String(sealIntervalMs),
  };
  const serviceEnv = (replica: number) => ({
    ...env,
    BENCH_ROUND_TRIPS_FILE: costFile(replica),
    NODE_OPTIONS: `--require ${path.join(__dirname, 'service-costs.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    ...(settings.BENCH_CPU_PROF && { BENCH_CPU_PROF_FILE: settings.BENCH_CPU_PROF + (replica ? `.${replica}` : '') }),
  });
  const pg = new Client({ connectionString: db.url });
  const apps: Awaited<ReturnType<typeof startAppProcess>>[] = [];
  try {
    await runScript('apps/control/src/migrate.ts', [], env);
    await pg.connect();
    await pg.query(`ALTER DATABASE "${(await pg.query('SELECT current_database() AS name')).rows[0].name}" SET synchronous_commit = on`);
    const agents = await seed(pg);
    // One at a time: the first boot creates the cosigning key, the others load it.
    for (let r = 0; r < replicas; r++) apps.push(await startAppProcess('apps/control/src/main.ts', 'CONTROL_PORT', serviceEnv(r)));
    const bases = apps.map((a) => `http://127.0.0.1:${a.port}`);
    const as = (i: number) => agents[i % agents.length];
    const payment = (i: number) => ({
      headers: { authorization: `Bearer ${as(i).key}` },
      body: JSON.stringify({ budget_id: as(i).budgetId, amount_cents: 100 + (i % 50), counterparty: 'acme', idempotency_key: `bench-${i}`, metadata: { category: 'office' } }),
    });

    // Calibration: a route with no database work shows what the (shared) machine gives any request.
    if (runs('baseline')) await load(pg, bases, { title: 'Baseline: GET /.well-known/jwks.json (no database)', path: '/.well-known/jwks.json', method: 'GET', expect: 200, body: () => ({ headers: {}, body: '' }) });
    // Verify and consume need authorizations to spend, so they run this one too.
    if (runs('authorize') || runs('verify') || runs('consume')) await load(pg, bases, { title: `Allowed payment authorizations (${agentCount} agents, reservation + cosignature)`, path: '/control/v1/agent/payment_intents', expect: 201, body: payment });
    if (runs('authorize') && sealIntervalMs > 0) await reportSealLag(pg);
    const floor = runs('floor') ? await decisionFloor() : null;
    const simulated = runs('simulate') && await load(pg, bases, {
      title: 'Action simulations',
      path: '/control/v1/agent/actions/simulate',
      expect: 200,
      body: (i) => ({
        headers: { authorization: `Bearer ${as(i).key}` },
        body: JSON.stringify({ budget_id: as(i).budgetId, action_type: 'payment.create', resource: 'acme', cost_cents: 500, metadata: { category: 'office' } }),
      }),
    });
    if (floor && simulated) report('Simulate / decision floor (same run)', { ratio: (simulated / floor).toFixed(2), target: '>= 0.8' });
    const tokens = (await pg.query(`SELECT cosignature FROM intents WHERE cosignature IS NOT NULL AND cosign_consumed_at IS NULL ORDER BY created_at DESC`)).rows.map((r) => r.cosignature as string);
    if (runs('verify')) await load(pg, bases, { title: 'Cosignature verify', path: '/control/v1/cosign/verify', expect: 200, body: () => ({ headers: {}, body: JSON.stringify({ authorization: tokens[0] }) }) });
    const spendable = tokens.slice(1);
    if (runs('consume')) await load(pg, bases, {
      title: `Cosignature consume (${spendable.length} distinct authorizations, each once)`,
      path: '/control/v1/cosign/consume',
      expect: 200,
      amount: spendable.length,
      body: (i) => ({ headers: {}, body: JSON.stringify({ authorization: spendable[i % spendable.length], consumed_by: 'bench' }) }),
    });
    const evaluation = runs('evaluation') ? await runScript('apps/control/src/policies/policy-evaluation.bench.ts', [], env) : '';
    for (const line of evaluation.trim().split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { rules: number; compiled_ns_per_rule: number; json_logic_ns_per_rule: number };
      report(`Policy evaluation alone, ${r.rules} condition rule(s)`, { 'compiled (ns/rule)': r.compiled_ns_per_rule, 'json-logic-js (ns/rule)': r.json_logic_ns_per_rule });
    }
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    const out = settings.BENCH_SERVICE_STDOUT;
    if (out) apps.forEach((a, r) => writeFileSync(out + (r ? `.${r}` : ''), a.stdout()));
    await pg.end().catch(() => undefined);
    await db.drop();
    for (let r = 0; r < replicas; r++) rmSync(costFile(r), { force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
