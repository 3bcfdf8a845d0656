import { randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  buildIfStale,
  databaseUrl,
  EmbeddedPostgresHandle,
  ensureDatabases,
  Gateway,
  GatewayRoute,
  ensureRedis,
  ProcessSupervisor,
  RedisHandle,
  serveGateway,
  serveStaticSite,
  startEmbeddedPostgres,
  StaticSite,
} from '@bursar/dev-infra';
import { launcherDataDir, LAUNCHER_SECRETS_FILE, stopWhenParentGoes, writeLauncherSettings } from '@bursar/service-kit';

/**
 * `pnpm start`: the whole stack on one machine. Databases from CONTROL_DATABASE_URL and
 * LEDGER_DATABASE_URL, or an embedded PostgreSQL under .data/postgres; Redis from REDIS_URL, or a
 * redis-server we start; then migrations, then control, ledger and the worker as child processes,
 * the browser console (built when its sources changed) on CONSOLE_PORT, and one origin for both
 * APIs on GATEWAY_PORT. What it runs with goes into the data folder's settings.json, so the
 * operator CLIs find it.
 */
const root = path.resolve(__dirname, '../../../..');
const dist = path.join(root, 'dist');
const env = process.env;
/** BURSAR_DATA_DIR, else .data: the embedded database, the secret keys and the settings file the operator CLIs read. */
const dataDir = launcherDataDir(env);

const services = [
  { name: 'control', entry: 'apps/control/src', port: Number(env.CONTROL_PORT ?? 3000), migrate: true },
  { name: 'ledger', entry: 'apps/ledger/src', port: Number(env.LEDGER_PORT ?? 3001), migrate: true },
  { name: 'webhook-worker', entry: 'apps/webhook-worker/src', port: Number(env.WORKER_PORT ?? 3002), migrate: false },
];

/** How long each child (and the database) gets to stop before it is killed. */
const STOP_TIMEOUT_MS = Number(env.LAUNCHER_STOP_TIMEOUT_MS ?? 10_000);
/** Bounds on the one-shot steps: migrations, the operator CLI. */
const SCRIPT_TIMEOUT_MS = 120_000;
const HEALTH_TIMEOUT_MS = 60_000;
/** Tries of a start-up step before it counts as failed; the waits between them double from the first. */
const STEP_ATTEMPTS = 4;
const STEP_FIRST_RETRY_MS = 500;

const processes = new ProcessSupervisor({ stopTimeoutMs: STOP_TIMEOUT_MS });
let postgres: EmbeddedPostgresHandle | undefined;
let redis: RedisHandle | undefined;
let consoleSite: StaticSite | undefined;

/** The browser console: static files from dist/console; control lets this origin call it. */
const CONSOLE_PORT = Number(env.CONSOLE_PORT ?? 3003);
/** LAUNCHER_CONSOLE=off skips building and serving it (the launcher's own test does). */
const consoleEnabled = env.LAUNCHER_CONSOLE !== 'off';
const consoleOrigins = [`http://localhost:${CONSOLE_PORT}`, `http://127.0.0.1:${CONSOLE_PORT}`];

/** One origin for both APIs, as the reference serves them (and compose's nginx gateway): SDKs take one base URL. */
const GATEWAY_PORT = Number(env.GATEWAY_PORT ?? 3004);
const gatewayUrl = `http://localhost:${GATEWAY_PORT}`;
let gateway: Gateway | undefined;

/** What each service serves at the origin root besides its /control or /ledger tree (infra/gateway/nginx.conf). */
function gatewayRoutes(): GatewayRoute[] {
  const [control, ledger] = [services[0].port, services[1].port];
  return [
    { path: '/control', port: control },
    { path: '/v1/auth', port: control },
    { path: '/v1/account', port: control },
    { path: '/.well-known/jwks.json', port: control, exact: true },
    { path: '/ledger', port: ledger },
    { path: '/oauth', port: ledger },
    // RFC 8414 lets a path follow the well-known name.
    { path: '/.well-known/oauth-authorization-server', port: ledger },
    { path: '/healthz', port: ledger, exact: true },
  ];
}

function say(line: string): void {
  process.stdout.write(`[bursar] ${line}\n`);
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Secret keys survive restarts in .data/secrets.json (mode 600) so encrypted rows stay readable. */
async function secretKeys(): Promise<Record<string, string>> {
  const file = path.join(dataDir, LAUNCHER_SECRETS_FILE);
  const stored: Record<string, string> = JSON.parse(await readFile(file, 'utf8').catch(() => '{}'));
  let changed = false;
  for (const name of ['CONTROL_SECRET_KEY', 'LEDGER_SECRET_KEY', 'WEBHOOK_SECRET_KEY']) {
    if (!stored[name]) {
      stored[name] = randomBytes(32).toString('base64');
      changed = true;
    }
  }
  // base64url: it travels inside HTTP Basic credentials, where '+' would decode as a space.
  if (!/^[A-Za-z0-9_-]{16,}$/.test(stored.DEV_IDENTITY_SECRET ?? '')) {
    stored.DEV_IDENTITY_SECRET = randomBytes(24).toString('base64url');
    changed = true;
  }
  if (changed) await writeFile(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  return {
    CONTROL_SECRET_KEY: env.CONTROL_SECRET_KEY ?? stored.CONTROL_SECRET_KEY,
    LEDGER_SECRET_KEY: env.LEDGER_SECRET_KEY ?? stored.LEDGER_SECRET_KEY,
    WEBHOOK_SECRET_KEY: env.WEBHOOK_SECRET_KEY ?? stored.WEBHOOK_SECRET_KEY,
    DEV_IDENTITY_SECRET: env.DEV_IDENTITY_SECRET ?? stored.DEV_IDENTITY_SECRET,
  };
}

async function databases(): Promise<{ CONTROL_DATABASE_URL: string; LEDGER_DATABASE_URL: string }> {
  if (env.CONTROL_DATABASE_URL && env.LEDGER_DATABASE_URL) {
    say('using CONTROL_DATABASE_URL and LEDGER_DATABASE_URL');
    return { CONTROL_DATABASE_URL: env.CONTROL_DATABASE_URL, LEDGER_DATABASE_URL: env.LEDGER_DATABASE_URL };
  }
  const port = Number(env.EMBEDDED_POSTGRES_PORT ?? 5488);
  say(`starting embedded PostgreSQL on 127.0.0.1:${port} (data in ${path.join(dataDir, 'postgres')})`);
  postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port, persistent: true, stopTimeoutMs: STOP_TIMEOUT_MS });
  if (postgres.adopted) say(`PostgreSQL was already running on its data folder (left by an earlier run); using it: ${postgres.adminUrl}`);
  await ensureDatabases(postgres.adminUrl, ['bursar_control', 'bursar_ledger']);
  return {
    CONTROL_DATABASE_URL: env.CONTROL_DATABASE_URL ?? databaseUrl(postgres.adminUrl, 'bursar_control'),
    LEDGER_DATABASE_URL: env.LEDGER_DATABASE_URL ?? databaseUrl(postgres.adminUrl, 'bursar_ledger'),
  };
}

/** A long-running service; the stack stops when one ends on its own. */
async function run(script: string, childEnv: NodeJS.ProcessEnv, name: string): Promise<void> {
  // With an IPC channel, so the service stops itself should the launcher be killed outright.
  await processes.start(name, { file: process.execPath, args: [path.join(dist, script)], env: childEnv, ipc: true }, (_, how) => {
    say(`${name} exited (${how}); stopping the stack`);
    void stop(1);
  });
}

/** Runs a dist script to completion (bounded) and returns what it printed on stdout. */
function runScript(script: string, args: string[], childEnv: NodeJS.ProcessEnv): Promise<string> {
  return processes.run({ file: process.execPath, args: [path.join(dist, script), ...args], env: childEnv }, SCRIPT_TIMEOUT_MS);
}

/**
 * A test-mode OAuth client for the embedded database, made once through the operator CLI and kept
 * in .data (a development convenience: the secret is only ever shown once by the API).
 */
async function ledgerTestClient(childEnv: NodeJS.ProcessEnv): Promise<{ client_id: string; client_secret: string; ledger_id?: string }> {
  const file = path.join(dataDir, 'ledger-test-client.json');
  const saved = await readFile(file, 'utf8').catch(() => undefined);
  if (saved) return JSON.parse(saved);
  const made = JSON.parse(await runScript('apps/ledger/src/admin.js', ['create-test-client'], childEnv));
  const credentials = { client_id: made.client_id, client_secret: made.client_secret, ledger_id: made.ledger_id };
  await writeFile(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return credentials;
}

/**
 * Prints the test client, made on the first start. The stack is up and healthy by then, so a
 * failure here (after its retries) is reported and the stack runs on: the operator command makes one.
 */
async function showLedgerTestClient(childEnv: NodeJS.ProcessEnv): Promise<void> {
  const client = await withRetries('making the ledger test client', () => ledgerTestClient(childEnv)).catch((e: unknown) => {
    say(`could not make the ledger test client (${messageOf(e)}); the stack runs on, and \`pnpm -s ledger:admin create-test-client\` makes one`);
  });
  if (!client) return;
  say('ledger test-mode OAuth client (client_credentials at POST /oauth/token):');
  say(`  client_id     ${client.client_id}`);
  say(`  client_secret ${client.client_secret}`);
  if (client.ledger_id) say(`  ledger_id     ${client.ledger_id}`);
}

/**
 * What the operator CLIs need to work beside this stack with no set-up: the values it runs with
 * (secret keys by name only: they stay in secrets.json). Their own environment still wins.
 */
function writeSettingsFile(childEnv: NodeJS.ProcessEnv, secrets: Record<string, string>): void {
  const names = [
    'CONTROL_DATABASE_URL', 'LEDGER_DATABASE_URL', 'REDIS_URL', 'WEBHOOK_QUEUE_PREFIX',
    'CONTROL_PORT', 'LEDGER_PORT', 'WORKER_PORT', 'LEDGER_PUBLIC_URL', 'COSIGN_ISSUER', 'IDENTITY_ISSUER', 'IDENTITY_AUDIENCE',
    'COSIGN_KEY_RELOAD_MS', 'COSIGN_JWKS_MAX_AGE_SECONDS', 'COSIGN_KEY_ACTIVATION_DELAY_MS',
  ];
  const settings: Record<string, string> = {
    ...Object.fromEntries(names.flatMap((n) => (childEnv[n] ? [[n, childEnv[n] as string]] : []))),
    GATEWAY_PORT: String(GATEWAY_PORT),
    GATEWAY_URL: gatewayUrl,
    CONTROL_URL: `http://localhost:${services[0].port}`,
    LEDGER_URL: `http://localhost:${services[1].port}`,
    ...(consoleEnabled && { CONSOLE_PORT: String(CONSOLE_PORT) }),
  };
  // Keys given in the environment are not in secrets.json; the CLIs must be given them the same way.
  const fromFile = Object.keys(secrets).filter((n) => !env[n]);
  say(`settings for the operator CLIs: ${writeLauncherSettings(dataDir, { settings, secrets: fromFile })}`);
}

/**
 * Runs a one-shot start-up step (migrations, the first start's test client) up to STEP_ATTEMPTS
 * times with doubling waits, saying why each failed: what runs beside the stack (an operator
 * command migrating the same database, say) can upset one attempt without anything being wrong.
 */
async function withRetries<T>(what: string, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (attempt >= STEP_ATTEMPTS || stopping) throw e;
      const wait = STEP_FIRST_RETRY_MS * 2 ** (attempt - 1);
      say(`${what} failed (attempt ${attempt} of ${STEP_ATTEMPTS}): ${messageOf(e)}; trying again in ${wait} ms`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

async function migrate(script: string, childEnv: NodeJS.ProcessEnv, name: string): Promise<void> {
  const out = await withRetries(`${name} migrations`, () => runScript(script, [], childEnv)).catch((e: unknown) => {
    throw new Error(`${name} migrations failed: ${messageOf(e)}`);
  });
  if (out) process.stdout.write(out);
}

/** Polls until the route answers 2xx; each poll and the whole wait are bounded, so a hung socket cannot stall the start. */
async function waitHealthy(port: number, name: string, path = '/healthz'): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline && !stopping) {
    const ok = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${name} did not become healthy on port ${port}`);
}

/**
 * With no IDENTITY_ISSUER configured, runs the development identity provider (a real OIDC provider
 * on loopback) and points the control service at it. Returns the issuer, or undefined when an
 * external provider is configured.
 */
async function devIdentity(childEnv: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.IDENTITY_ISSUER) {
    say(`identity tokens: trusting ${env.IDENTITY_ISSUER}`);
    return undefined;
  }
  const port = Number(env.DEV_IDENTITY_PORT ?? 3009);
  const issuer = `http://127.0.0.1:${port}`;
  const audience = env.IDENTITY_AUDIENCE ?? 'urn:bursar:control';
  Object.assign(childEnv, { IDENTITY_ISSUER: issuer, IDENTITY_AUDIENCE: audience, DEV_IDENTITY_PORT: String(port), DEV_IDENTITY_AUDIENCE: audience });
  await run('apps/control/src/dev-identity/main.js', childEnv, 'dev-identity');
  await waitHealthy(port, 'dev-identity', '/.well-known/openid-configuration');
  return issuer;
}

/** Builds the console when its sources changed since the last build, then serves it. */
async function startConsole(issuer: string): Promise<void> {
  buildIfStale({ sources: path.join(root, 'apps/console'), output: path.join(dist, 'console/index.html'), command: ['pnpm', '-s', 'build:console'], cwd: root });
  consoleSite = await serveStaticSite({
    dir: path.join(dist, 'console'),
    port: CONSOLE_PORT,
    config: { controlUrl: `http://localhost:${services[0].port}`, issuer, clientId: env.CONSOLE_CLIENT_ID ?? 'bursar-console' },
  });
}

let stopping = false;
/**
 * Stops the services (SIGTERM, SIGKILL after STOP_TIMEOUT_MS), then Redis and the database if we
 * started them; a second Ctrl-C exits at once. Each step is bounded, so nothing that already died
 * (a database restarted since) can hold the stop up. A start-up step or service that fails because
 * the stop ended it calls here again; that is no second Ctrl-C, and the stop carries on.
 */
async function stop(code: number, bySignal = false): Promise<void> {
  if (stopping) {
    if (!bySignal) return;
    say('stopping now');
    process.exit(code || 130);
  }
  stopping = true;
  say('stopping');
  const step = (what: string, work: Promise<void> | undefined) =>
    work?.catch((e: unknown) => say(`could not stop ${what}: ${messageOf(e)}`));
  await step('console', consoleSite?.close());
  await step('gateway', gateway?.close());
  await processes.stopAll();
  await step('redis', redis?.stop());
  await step('PostgreSQL', postgres?.stop());
  process.exit(code);
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stop(0, true));
  process.on('SIGTERM', () => void stop(0, true));
  // Started by a program with an IPC channel (the launcher's own test), it stops when that program
  // dies; its output pipes may be gone by then, which must not cut the stop short.
  stopWhenParentGoes();
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  await mkdir(dataDir, { recursive: true });

  const redisUrl = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  redis = await ensureRedis(redisUrl);
  if (!redis) {
    throw new Error(
      `Redis does not answer at ${redisUrl} and redis-server is not on the PATH. Install Redis ` +
        '(apt install redis-server, brew install redis) or point REDIS_URL at one.',
    );
  }
  const secrets = await secretKeys();
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    ...(await databases()),
    ...secrets,
    REDIS_URL: redis.url,
    CONTROL_PORT: String(services[0].port),
    LEDGER_PORT: String(services[1].port),
    WORKER_PORT: String(services[2].port),
    // Public URLs are the gateway's, as in the compose stack: that is the origin clients are given.
    COSIGN_ISSUER: env.COSIGN_ISSUER ?? gatewayUrl,
    LEDGER_PUBLIC_URL: env.LEDGER_PUBLIC_URL ?? gatewayUrl,
    CORS_ALLOWED_ORIGINS: env.CORS_ALLOWED_ORIGINS ?? consoleOrigins.join(','),
    DEV_IDENTITY_CONSOLE_REDIRECT_URIS: env.DEV_IDENTITY_CONSOLE_REDIRECT_URIS ?? consoleOrigins.map((o) => `${o}/`).join(','),
  };

  const devIssuer = await devIdentity(childEnv);
  writeSettingsFile(childEnv, secrets);
  for (const s of services.filter((x) => x.migrate)) await migrate(`${s.entry}/migrate.js`, childEnv, s.name);
  for (const s of services) await run(`${s.entry}/main.js`, childEnv, s.name);
  await Promise.all(services.map((s) => waitHealthy(s.port, s.name)));
  gateway = await serveGateway({ port: GATEWAY_PORT, routes: gatewayRoutes() }).catch((e: unknown) => {
    throw new Error(`the one origin could not listen on GATEWAY_PORT ${GATEWAY_PORT} (${messageOf(e)}); set GATEWAY_PORT to a free port`);
  });
  const issuer = devIssuer ?? env.IDENTITY_ISSUER;
  if (issuer && consoleEnabled) await startConsole(issuer);

  say('Bursar is up:');
  for (const s of services) say(`  ${s.name.padEnd(15)} http://localhost:${s.port}  (/healthz /readyz /metrics)`);
  say(`  control API     http://localhost:${services[0].port}/control/v1/openapi.json`);
  say(`  ledger API      http://localhost:${services[1].port}/ledger/v1/openapi.json`);
  say(`  one origin      ${gatewayUrl}  (/control /ledger /oauth /.well-known /v1/auth: the base URL for SDKs)`);
  if (consoleSite) {
    const signIn = devIssuer ? ` (sign in with any email and the development secret ${childEnv.DEV_IDENTITY_SECRET})` : '';
    say(`  console         http://localhost:${CONSOLE_PORT}${signIn}`);
  }
  if (postgres) await showLedgerTestClient(childEnv);
  say('more ledger credentials (JSON): pnpm -s ledger:admin create-test-client; every operator command: pnpm -s ledger:admin --help');
  if (devIssuer) say('a workspace, an agent key and an identity token for the control SDK (JSON): pnpm -s control:admin create-test-agent');
  if (devIssuer) {
    say(`development identity provider ${devIssuer} (set IDENTITY_ISSUER to use your own). A token for any person:`);
    say(
      `  curl -s -u 'you@example.com:${childEnv.DEV_IDENTITY_SECRET}' -d grant_type=client_credentials -d scope=control ${devIssuer}/token | jq -r .access_token`,
    );
    say(
      `  then: curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"name":"Acme"}' http://localhost:${services[0].port}/control/v1/workspaces`,
    );
  }
  say('Ctrl-C stops everything.');
}

main().catch((err: unknown) => {
  process.stderr.write(`[bursar] ${messageOf(err)}\n`);
  void stop(1);
});
