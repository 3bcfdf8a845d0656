import type autocannon from 'autocannon';
import { generateSecretKey } from '@bursar/crypto';
import type { ToolSetting } from '@bursar/dev-infra';
import { createTestDatabase, runScript, TestDatabase } from '@bursar/testing';

/*
 * Shared harness of the `pnpm bench:*` scripts: scratch databases on the local Postgres, app
 * processes running the TypeScript sources, percentiles and a uniform report.
 */

// The bench tools run scripts through bench-kit, like everything else they share.
export { runScript };

/** The servers every bench uses, as its --help shows them. */
export const BENCH_SERVERS = {
  BENCH_DATABASE_URL: { help: 'PostgreSQL server the scratch databases go on (TEST_DATABASE_URL wins when set)', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  REDIS_URL: { help: 'Redis the services use', default: 'redis://127.0.0.1:6379' },
} satisfies Record<string, ToolSetting>;

/** Settings of the benchmarked service's Node process(es). */
export const BENCH_SERVICE_NODE = {
  BENCH_NODE_OPTIONS: { help: 'passed to the service process(es), e.g. `-r ./some-preload.js`' },
} satisfies Record<string, ToolSetting>;

/** A CPU profile of the benchmarked service, for the benches that start replicas. */
export const BENCH_CPU_PROFILE = {
  BENCH_CPU_PROF: { help: '<file.cpuprofile>: a CPU profile of the service (replica r > 0 writes <file>.r)' },
} satisfies Record<string, ToolSetting>;

/** Totals and worst values over the load generators of one run, one per service replica. */
export function overReplicas(results: autocannon.Result[]) {
  return {
    sum: (f: (r: autocannon.Result) => number) => results.reduce((t, r) => t + f(r), 0),
    worst: (f: (r: autocannon.Result) => number) => Math.max(...results.map(f)),
  };
}

/** A fresh database on BENCH_DATABASE_URL's server (default the local one), dropped by `drop()`. */
export function scratchDatabase(label: string): Promise<TestDatabase> {
  process.env.TEST_DATABASE_URL ??= process.env.BENCH_DATABASE_URL ?? BENCH_SERVERS.BENCH_DATABASE_URL.default;
  return createTestDatabase(`bench_${label}`);
}

export function redisUrl(): string {
  return process.env.REDIS_URL ?? BENCH_SERVERS.REDIS_URL.default;
}

/** A ledger service's environment for a bench: its scratch database, a fresh key, the per-client rate limits out of the way. */
export function ledgerBenchEnv(databaseUrl: string): Record<string, string> {
  return {
    LEDGER_DATABASE_URL: databaseUrl,
    LEDGER_SECRET_KEY: generateSecretKey(),
    REDIS_URL: redisUrl(),
    // The per-client rate limits would cap a single benchmark client at 20 writes/s.
    LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    LEDGER_RATE_LIMIT_READS_PER_SECOND: '1000000',
    NODE_ENV: 'production',
  };
}


/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Prints one result block: a title and aligned `name: value` lines. */
export function report(title: string, rows: Record<string, string | number>): void {
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  process.stdout.write(`\n${title}\n`);
  for (const [name, value] of Object.entries(rows)) {
    process.stdout.write(`  ${name.padEnd(width)}  ${typeof value === 'number' ? Number(value.toFixed(1)) : value}\n`);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A test-mode organization, ledger and read/write client made with the operator CLI, and an access token. */
export async function ledgerBenchClient(
  env: Record<string, string>,
  baseUrl: string,
): Promise<{ organizationId: string; ledgerId: string; token: string }> {
  const admin = async (...args: string[]) => JSON.parse(await runScript('apps/ledger/src/admin.ts', args, env));
  const organizationId = (await admin('create-organization', '--name', 'Bench')).id;
  const ledgerId = (await admin('create-ledger', '--organization', organizationId, '--name', 'bench', '--mode', 'test')).id;
  const client = await admin(
    'create-client', '--organization', organizationId, '--ledger', ledgerId, '--mode', 'test', '--scopes', 'ledger:read,ledger:write',
  );
  const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await res.json()) as { access_token: string };
  return { organizationId, ledgerId, token };
}
