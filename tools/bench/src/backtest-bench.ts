import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { generateSecretKey } from '@bursar/crypto';
import { freePort, toolSettings } from '@bursar/dev-infra';
import { startAppProcess, SWC_REGISTER } from '@bursar/testing';
import { BENCH_SERVERS, percentile, redisUrl, report, runScript, scratchDatabase, sleep, BENCH_SERVICE_NODE } from './bench-kit';

/*
 * `pnpm bench:backtest`: the real control service (a child process) on a scratch database backtests
 * a policy draft over BACKTEST_DECISIONS recorded decisions (default 1,000,000), end to end.
 *  - A person (the development identity provider) makes a workspace and one agent with a live
 *    policy (per-transaction cap, hold threshold, hourly velocity window) through the API, and the
 *    agent makes one allowed, one held and one denied request: their recorded decisions are the
 *    templates of the history.
 *  - The history is seeded with SQL (generate_series): 100 agents, 30 days, amounts 0..59.99 so a
 *    sixth is denied and a sixth held; a third of the holds rejected 10 minutes later. Each row
 *    carries the counters its decision read (budget, the velocity window's spend and count).
 *  - One sequential backtest of a stricter draft (lower cap and threshold, a tight hourly velocity
 *    cap, so earlier outcomes move later headroom) over the whole workspace and window: POST, then
 *    polled until completed. decisions/s is decisions over the time from the POST to completion;
 *    the service's peak RSS comes from tools/bench/src/peak-rss.preload.js.
 *  - A check: the draft equal to the live policy, in independent mode, must change nothing.
 *  - Before the backtests, on the same history: one fold of the seeded decisions into the Spending
 *    rollups (`SELECT fold_decision_rollups()`, timed; the service's own folder is off), then the
 *    Spending summary (`GET …/spending`) of the 30 days, SPENDING_CALLS sequential calls over a
 *    range not aligned to hours (so it reads the day and hour rollups and the intents at both edges),
 *    its latency percentiles, and a check that its totals equal a direct count of the intents in
 *    that range.
 */

const settings = toolSettings({
  command: 'pnpm bench:backtest',
  summary: 'The real control service backtests a stricter policy draft over recorded decisions seeded with SQL: decisions/s end\nto end and peak RSS; an equal draft in independent mode must change nothing.',
  env: {
    BACKTEST_DECISIONS: { help: 'recorded decisions to backtest over', default: '1000000' },
    SPENDING_CALLS: { help: 'sequential Spending summary calls timed over the 30 days', default: '30' },
    ...BENCH_SERVICE_NODE,
    ...BENCH_SERVERS,
  },
});
const decisions = Number(settings.BACKTEST_DECISIONS);
const AGENTS = 100;
const DAYS = 30;
const BASE = Date.parse('2026-01-01T00:00:00Z');
const LIVE = { per_transaction_cap_cents: 5000, approval_threshold_cents: 4000, velocity_cap_cents: 100_000_000, velocity_window_seconds: 3600 };
const STRICTER = { per_transaction_cap_cents: 4800, approval_threshold_cents: 3500, velocity_cap_cents: 40_000, velocity_window_seconds: 3600 };
const peakRssFile = path.join(tmpdir(), `backtest-bench-rss-${process.pid}`);

/** The development identity provider (it has no /healthz: ready once it publishes its configuration). */
async function startDevIdentity(secret: string): Promise<{ issuer: string; child: ChildProcess }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(__dirname, '../../../apps/control/src/dev-identity/main.ts')], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', DEV_IDENTITY_PORT: String(port), DEV_IDENTITY_SECRET: secret },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${issuer}/.well-known/openid-configuration`).then((r) => r.ok, () => false)) return { issuer, child };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('dev identity provider did not start');
}

async function personToken(issuer: string, secret: string): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`bench@example.com:${secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=control',
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(baseUrl: string, token: string, method: string, route: string, body?: object, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    ...(body && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300 && res.status !== 403) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/**
 * The history, agent i % AGENTS at BASE + i * step: rows shaped as the service writes them, with
 * the decision of its outcome's template and the counters it read (the hour's spend and count of
 * the agent's earlier requests it let through).
 */
async function seedHistory(pg: Client, workspaceId: string, templates: Record<string, unknown>): Promise<void> {
  await pg.query(
    `INSERT INTO agents (id, workspace_id, name, status, mode, key_lookup, key_digest, api_key_prefix)
     SELECT gen_random_uuid(), $1, 'bench-' || a, 'active', 'test', 'bench-lookup-' || a, 'x', 'krt_test_x' FROM generate_series(1, $2) a`,
    [workspaceId, AGENTS],
  );
  await pg.query(
    `INSERT INTO budgets (workspace_id, agent_id, budget_cents, currency, status)
     SELECT workspace_id, id, 1000000000000, 'USD', 'active' FROM agents WHERE workspace_id = $1 AND name LIKE 'bench-%'`,
    [workspaceId],
  );
  await pg.query('BEGIN');
  await pg.query(`
    CREATE TEMP TABLE agent_no ON COMMIT DROP AS
    SELECT (row_number() OVER (ORDER BY a.id) - 1)::int AS n, a.id AS agent_id, b.id AS budget_id
      FROM agents a JOIN budgets b ON b.agent_id = a.id WHERE a.workspace_id = '${workspaceId}' AND a.name LIKE 'bench-%'`);
  await pg.query(
    `CREATE TEMP TABLE seed ON COMMIT DROP AS
     SELECT i, n.agent_id, n.budget_id, c.cost,
            CASE WHEN c.cost > 5000 THEN 'denied' WHEN c.cost > 4000 THEN 'requires_approval' ELSE 'allowed' END AS outcome,
            to_timestamp($2::float8 / 1000) + (i * $3::float8) * interval '1 millisecond' AS at
       FROM generate_series(0, $1 - 1) i
      CROSS JOIN LATERAL (SELECT ((i::bigint * 7919) % 6000) AS cost) c
       JOIN agent_no n ON n.n = i % ${AGENTS}`,
    [decisions, BASE, (DAYS * 86_400_000) / decisions],
  );
  await pg.query(
    `INSERT INTO intents (id, workspace_id, agent_id, budget_id, kind, action_type, resource, amount_cents, currency, state, reserved_cents,
                          idempotency_key, request_digest, http_status, decision, metadata, decision_inputs, resolved_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1, s.agent_id, s.budget_id, 'action', 'api.call', 'vendor-' || (s.i % 7), s.cost, 'USD',
            CASE WHEN s.outcome = 'allowed' THEN 'completed' WHEN s.outcome = 'denied' THEN 'denied' WHEN s.i % 3 = 0 THEN 'denied' ELSE 'pending' END,
            0, 'seed-' || s.i, 'seed', CASE s.outcome WHEN 'allowed' THEN 201 WHEN 'denied' THEN 403 ELSE 202 END,
            ($2::jsonb)->(s.outcome), '{}',
            jsonb_build_object(
              'now', (extract(epoch FROM s.at) * 1000)::bigint,
              'agent', jsonb_build_object('mode', 'test', 'scopes', '[]'::jsonb),
              'budget', jsonb_build_object('status', 'active', 'budget_cents', 1000000000000, 'spent_cents', 0, 'reserved_cents', 0),
              'windows', jsonb_build_array(jsonb_build_object(
                'kind', 'velocity', 'window_seconds', 3600, 'action_patterns', NULL,
                'since', (extract(epoch FROM s.at) * 1000)::bigint - 3600000,
                'spent_cents', COALESCE(s.spent, 0), 'count', s.count, 'oldest_at', NULL)),
              'spend_token', NULL, 'settlement', NULL),
            CASE WHEN s.outcome = 'requires_approval' AND s.i % 3 = 0 THEN s.at + interval '10 minutes' END,
            s.at, s.at
       FROM (SELECT s.*,
                    sum(s.cost) FILTER (WHERE s.outcome <> 'denied') OVER hour AS spent,
                    count(*) FILTER (WHERE s.outcome <> 'denied') OVER hour AS count
               FROM seed s
             WINDOW hour AS (PARTITION BY s.agent_id ORDER BY s.at RANGE BETWEEN interval '1 hour' PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)) s`,
    [workspaceId, JSON.stringify(templates)],
  );
  await pg.query('COMMIT');
  await pg.query('ANALYZE intents');
}

/** Times the 30-day Spending summary and checks its totals against the intents of the same range. */
async function spending(baseUrl: string, token: string, slug: string, pg: Client, workspaceId: string) {
  const from = new Date(BASE + 1_234_567).toISOString();
  const to = new Date(BASE + DAYS * 86_400_000 - 1_234_567).toISOString();
  const route = `/control/v1/workspaces/${slug}/spending?granularity=day&from=${from}&to=${to}`;
  const ms: number[] = [];
  let body: { data: { totals: { outcome: string; count: number; amount_cents: number }[]; timeline: unknown[] } } | undefined;
  for (let i = 0; i < Number(settings.SPENDING_CALLS); i++) {
    const started = performance.now();
    body = await call(baseUrl, token, 'GET', route);
    ms.push(performance.now() - started);
  }
  const direct = await pg.query(
    `SELECT decision->>'outcome' AS outcome, count(*)::int AS count, sum(amount_cents)::bigint AS amount_cents
       FROM intents WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1`,
    [workspaceId, from, to],
  );
  const key = (rows: { outcome: string; count: number | string; amount_cents: number | string }[]) =>
    rows.map((r) => `${r.outcome} ${r.count} ${r.amount_cents}`).sort().join(', ');
  const totals = body?.data.totals ?? [];
  return { ms, totals: key(totals), matches: key(totals) === key(direct.rows), buckets: body?.data.timeline.length ?? 0 };
}

function peakRssMb(): number {
  return Number(readFileSync(peakRssFile, 'utf8')) / 1024;
}

async function backtest(baseUrl: string, token: string, slug: string, body: object) {
  const started = Date.now();
  const created = (await call(baseUrl, token, 'POST', `/control/v1/workspaces/${slug}/policy_backtests`, body)).data;
  let run = created;
  while (run.status === 'queued' || run.status === 'running') {
    await sleep(100);
    run = (await call(baseUrl, token, 'GET', `/control/v1/workspaces/${slug}/policy_backtests/${created.id}`)).data;
  }
  return { first: created.status as string, run, seconds: (Date.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const db = await scratchDatabase('backtest');
  const secret = randomBytes(18).toString('base64url');
  const env = {
    CONTROL_DATABASE_URL: db.url,
    CONTROL_SECRET_KEY: generateSecretKey(),
    REDIS_URL: redisUrl(),
    WEBHOOK_QUEUE_PREFIX: `bench-backtest-${process.pid}`,
    NODE_ENV: 'production',
    // The bench polls the run; the per-workspace limit is not what it measures.
    WORKSPACE_RATE_LIMIT_PER_MINUTE: '1000000',
    // The bench folds the seeded history itself, once, before timing the Spending summary.
    CONTROL_ROLLUP_FOLD_INTERVAL_MS: '0',
  };
  const pg = new Client({ connectionString: db.url });
  let identity: Awaited<ReturnType<typeof startDevIdentity>> | null = null;
  let app: Awaited<ReturnType<typeof startAppProcess>> | null = null;
  try {
    await pg.connect();
    await runScript('apps/control/src/migrate.ts', [], env);
    identity = await startDevIdentity(secret);
    app = await startAppProcess('apps/control/src/main.ts', 'CONTROL_PORT', {
      ...env,
      IDENTITY_ISSUER: identity.issuer,
      IDENTITY_AUDIENCE: 'urn:bursar:control',
      BENCH_PEAK_RSS_FILE: peakRssFile,
      NODE_OPTIONS: `--require ${path.join(__dirname, 'peak-rss.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    });
    const baseUrl = `http://127.0.0.1:${app.port}`;
    const token = await personToken(identity.issuer, secret);
    const slug = 'bench';
    const workspace = (await call(baseUrl, token, 'POST', '/control/v1/workspaces', { name: 'Bench', slug })).data;
    const agent = (await call(baseUrl, token, 'POST', `/control/v1/workspaces/${slug}/agents`, { name: 'template', skip_starter_policy: true })).data;
    await call(baseUrl, token, 'POST', `/control/v1/workspaces/${slug}/policies`, { agent_id: agent.id, ...LIVE });
    const budget = (await call(baseUrl, agent.api_key, 'POST', '/control/v1/agent/budgets', { budget_cents: 1_000_000 })).data;
    const templates: Record<string, unknown> = {};
    for (const cost of [100, 4500, 5500]) {
      const res = await call(baseUrl, agent.api_key, 'POST', '/control/v1/agent/actions', { budget_id: budget.id, action_type: 'api.call', cost_cents: cost }, { 'Idempotency-Key': randomUUID() });
      templates[res.decision.outcome] = (await pg.query(`SELECT decision FROM intents WHERE id = $1`, [res.data.id])).rows[0].decision;
    }
    // The template requests sit before the backtested window.
    await pg.query(`UPDATE intents SET created_at = $1 WHERE workspace_id = $2`, [new Date(BASE - 86_400_000), workspace.id]);

    let started = Date.now();
    await seedHistory(pg, workspace.id, templates);
    const seedSeconds = (Date.now() - started) / 1000;
    started = Date.now();
    await pg.query('SELECT fold_decision_rollups()');
    const foldSeconds = (Date.now() - started) / 1000;
    const summary = await spending(baseUrl, token, slug, pg, workspace.id);
    report(`spending summary: ${decisions} decisions of ${AGENTS} agents, 30 days by day (GET …/spending, ${summary.ms.length} sequential calls)`, {
      'ms p50': percentile(summary.ms, 50),
      'ms p95': percentile(summary.ms, 95),
      'ms max': Math.max(...summary.ms),
      'ms first call': summary.ms[0],
      'fold seconds (SQL, the whole history once)': foldSeconds,
      'timeline buckets': summary.buckets,
      'check: totals equal a direct count of the intents': `${summary.matches ? 'ok' : 'MISMATCH'}: ${summary.totals}`,
    });
    const rssBefore = peakRssMb();
    const window = { from: new Date(BASE).toISOString(), to: new Date(BASE + DAYS * 86_400_000).toISOString() };

    const stricter = await backtest(baseUrl, token, slug, { ...window, policy: STRICTER, mode: 'sequential' });
    await sleep(300);
    const rssAfter = peakRssMb();
    started = Date.now();
    const equal = await backtest(baseUrl, token, slug, { ...window, policy: LIVE, mode: 'independent' });
    const { result } = stricter.run;
    report(`policy backtest: ${decisions} recorded decisions of ${AGENTS} agents over ${DAYS} days, sequential, stricter draft`, {
      status: `${stricter.run.status} (first answer: ${stricter.first})`,
      'decisions/s (POST to completed)': result.evaluated / stricter.seconds,
      'backtest seconds': stricter.seconds,
      evaluated: result.evaluated,
      changed: result.changed,
      'totals before': JSON.stringify(result.totals.before),
      'totals after': JSON.stringify(result.totals.after),
      'top rules': result.top_rules.map((r: { rule: string; count: number }) => `${r.rule} ${r.count}`).join(', '),
      'service peak RSS MB (before run)': rssBefore,
      'service peak RSS MB (after run)': rssAfter,
      'check: equal draft, independent': `${equal.run.result.changed === 0 ? 'ok' : 'MISMATCH'}: ${equal.run.result.changed} changed of ${equal.run.result.evaluated} (${equal.seconds.toFixed(1)} s)`,
      'seed seconds (SQL)': seedSeconds,
    });
  } finally {
    await app?.stop();
    identity?.child.kill('SIGTERM');
    await pg.end();
    await db.drop();
    rmSync(peakRssFile, { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
