import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@bursar/dev-infra';
import { pollUntil, testRedisUrl } from '@bursar/testing';

/**
 * `pnpm start` as a new user runs it (the built dist and its embedded PostgreSQL, on ports and a
 * data folder of its own), with the operator CLIs run beside it bare: nothing in their environment
 * but PATH, HOME and the data folder, so every setting they use comes from the settings file the
 * launcher wrote.
 */
const root = path.resolve(__dirname, '../../..');
/** Printed once the services answer; the first start's own steps (the test client) come after it. */
const UP = 'Bursar is up:';
const STARTED = 'Ctrl-C stops everything.';
/** Each CLI run starts Node and loads the app's modules: a second or two apiece on a busy machine. */
const CLI_TEST_TIMEOUT_MS = 90_000;

/** Each compiled file the stack loads, with its inode and mtime: a build that rewrites it in place changes the mtime. */
function distStamps(): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const top of ['apps', 'libs', 'tools']) {
    for (const name of readdirSync(path.join(root, 'dist', top), { recursive: true, encoding: 'utf8' })) {
      const file = path.join(root, 'dist', top, name);
      const info = statSync(file);
      if (info.isFile()) stamps.set(file, `${info.ino}:${info.mtimeMs}`);
    }
  }
  return stamps;
}

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

describe('pnpm start with the operator tools beside it', () => {
  let launcher: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  let dataDir: string;
  let gateway: string;
  /** Two `pnpm -s ledger:admin create-test-client` started the moment the launcher said it was up. */
  let atOnce: Promise<Cli[]>;
  /** dist/ as it was when they started. */
  let distBefore: Map<string, string>;
  const ports: Record<string, number> = {};

  /**
   * Runs an operator CLI from dist with nothing set but PATH, HOME and where the launcher keeps its
   * data (or, `viaPnpm`, exactly as the README says: `pnpm -s ledger:admin ...`, which builds first).
   */
  const cli = (app: 'ledger' | 'control', args: string[], extraEnv: Record<string, string> = {}, viaPnpm = false): Promise<Cli> =>
    new Promise((resolve) => {
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', BURSAR_DATA_DIR: dataDir, ...extraEnv };
      const [file, argv] = viaPnpm ? ['pnpm', ['-s', `${app}:admin`, ...args]] : [process.execPath, [path.join(root, `dist/apps/${app}/src/admin.js`), ...args]];
      execFile(file, argv, { env, cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
        const text = code === 0 ? stdout : stderr;
        resolve({ code, stdout, stderr, json: text.trim().startsWith('{') ? JSON.parse(text) : {} });
      });
    });
  const ok = async (app: 'ledger' | 'control', ...args: string[]) => {
    const run = await cli(app, args);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return run.json;
  };

  beforeAll(async () => {
    execFileSync('pnpm', ['-s', 'build'], { cwd: root, stdio: 'ignore' });
    dataDir = await mkdtemp(path.join(tmpdir(), 'bursar-launcher-'));
    for (const name of ['CONTROL_PORT', 'LEDGER_PORT', 'WORKER_PORT', 'GATEWAY_PORT', 'DEV_IDENTITY_PORT', 'EMBEDDED_POSTGRES_PORT']) ports[name] = await freePort();
    gateway = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
    launcher = spawn(process.execPath, [path.join(root, 'dist/tools/launcher/src/main.js')], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BURSAR_DATA_DIR: dataDir,
        REDIS_URL: testRedisUrl(),
        WEBHOOK_QUEUE_PREFIX: `launcher-${process.pid}`,
        LAUNCHER_CONSOLE: 'off',
        LOG_LEVEL: 'warn',
        // Replicas reload the key set every second, so a rotated key shows in the JWKS at once.
        COSIGN_KEY_RELOAD_MS: '1000',
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      },
      // With an IPC channel: should this test process die, the launcher stops its stack.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    exited = new Promise((resolve) => launcher.once('exit', (code) => resolve(code)));
    launcher.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    launcher.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the launcher did not start:\n${output}`)), 150_000);
      const check = () => {
        // As a new user does: an operator command the moment the stack says it is up, here two at once,
        // each building first while the launcher's first start makes its own test client.
        if (!atOnce && output.includes(UP)) {
          distBefore = distStamps();
          atOnce = Promise.all([1, 2].map(() => cli('ledger', ['create-test-client'], {}, true)));
        }
        if (output.includes(STARTED)) {
          clearTimeout(timer);
          resolve();
        }
      };
      launcher.stdout?.on('data', check);
      void exited.then(() => reject(new Error(`the launcher exited:\n${output}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (launcher?.exitCode === null) {
      launcher.kill('SIGINT');
      await exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints the one origin and writes a settings file (mode 600) with no secret in it', async () => {
    expect(output).toContain(`one origin      http://localhost:${ports.GATEWAY_PORT}`);
    const file = path.join(dataDir, 'settings.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written.settings).toMatchObject({
      CONTROL_DATABASE_URL: expect.stringMatching(new RegExp(`:${ports.EMBEDDED_POSTGRES_PORT}/bursar_control$`)),
      LEDGER_DATABASE_URL: expect.stringMatching(new RegExp(`:${ports.EMBEDDED_POSTGRES_PORT}/bursar_ledger$`)),
      REDIS_URL: testRedisUrl(),
      GATEWAY_URL: `http://localhost:${ports.GATEWAY_PORT}`,
      LEDGER_PUBLIC_URL: `http://localhost:${ports.GATEWAY_PORT}`,
    });
    expect(written.secrets).toEqual(expect.arrayContaining(['CONTROL_SECRET_KEY', 'LEDGER_SECRET_KEY']));
    const secrets = JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    const text = await readFile(file, 'utf8');
    for (const value of Object.values(secrets)) expect(text).not.toContain(value);
  }, CLI_TEST_TIMEOUT_MS);

  it('runs two create-test-client at once the moment it is up, and the stack stays healthy', async () => {
    const runs = await atOnce;
    // Their builds (from unchanged sources) rewrote nothing the running stack loads from.
    const after = distStamps();
    expect([...distBefore].filter(([file, stamp]) => after.get(file) !== stamp).map(([file]) => path.relative(root, file))).toEqual([]);
    for (const run of runs) expect({ code: run.code, stderr: run.stderr, client: run.json.client_id }).toEqual({ code: 0, stderr: '', client: expect.stringMatching(/^client_/) });
    expect(runs[0].json.client_id).not.toBe(runs[1].json.client_id);
    // The first start made and printed its own client beside them, and nothing was retried or stopped.
    expect(output).toMatch(/client_id {5}client_/);
    expect(output).not.toMatch(/failed \(attempt|stopping|could not make/);
    expect(launcher.exitCode).toBeNull();
    for (const port of [ports.CONTROL_PORT, ports.LEDGER_PORT, ports.WORKER_PORT]) {
      for (const route of ['/healthz', '/readyz']) expect([port, route, (await fetch(`http://127.0.0.1:${port}${route}`)).status]).toEqual([port, route, 200]);
    }
    expect((await fetch(`${gateway}/healthz`)).status).toBe(200);
  }, CLI_TEST_TIMEOUT_MS);

  it('gives an SDK user a workspace, an agent key and an identity token that work through the one origin', async () => {
    const made = await cli('control', ['create-test-agent', '--name', 'SDK Works'], {}, true);
    expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: '' });
    expect(made.json).toMatchObject({
      base_url: `http://localhost:${ports.GATEWAY_PORT}`,
      workspace_slug: expect.stringMatching(/^sdk-works/),
      agent_key: expect.stringMatching(/^krt_test_/),
      mode: 'test',
      identity_token: expect.any(String),
      identity_token_expires_at: expect.any(String),
    });
    const bearer = (token: unknown) => ({ authorization: `Bearer ${String(token)}` });
    const workspace = await fetch(`${gateway}/control/v1/workspaces/${String(made.json.workspace_slug)}`, { headers: bearer(made.json.identity_token) });
    expect([workspace.status, ((await workspace.json()) as { data: { role: string } }).data.role]).toEqual([200, 'owner']);
    const agents = await fetch(`${gateway}/control/v1/workspaces/${String(made.json.workspace_slug)}/agents`, { headers: bearer(made.json.identity_token) });
    expect(((await agents.json()) as { data: { id: string }[] }).data.map((a) => a.id)).toEqual([made.json.agent_id]);
    // The agent key is accepted on the agent routes (an unknown budget is then a 404; a wrong key a 401).
    const budget = (key: unknown) => fetch(`${gateway}/control/v1/agent/budgets/00000000-0000-4000-8000-000000000000`, { headers: bearer(key) });
    expect((await budget(made.json.agent_key)).status).toBe(404);
    expect((await budget('krt_test_not-a-key')).status).toBe(401);
  }, CLI_TEST_TIMEOUT_MS);

  it('answers --help for each CLI and each command, as JSON, with no settings at all', async () => {
    for (const app of ['ledger', 'control'] as const) {
      const help = await cli(app, ['--help'], { BURSAR_DATA_DIR: path.join(dataDir, 'nowhere') });
      expect(help.code).toBe(0);
      expect(help.json.usage).toEqual(expect.arrayContaining([expect.stringContaining('rotate-secret-key')]));
    }
    const one = await ok('ledger', 'create-test-client', '--help');
    expect(one).toEqual({ command: 'create-test-client', usage: 'pnpm ledger:admin create-test-client [--name <organization name>]', summary: expect.any(String) });
    expect(await ok('control', 'rotate-cosign-key', '--help')).toMatchObject({ command: 'rotate-cosign-key', usage: 'pnpm control:admin rotate-cosign-key' });
    // A command line no command takes is refused before any setting is looked for.
    const misspelt = await cli('ledger', ['create-organization', '--nme', 'x'], { BURSAR_DATA_DIR: path.join(dataDir, 'nowhere') });
    expect([misspelt.code, misspelt.stdout, misspelt.json]).toEqual([
      2, '', { error: { code: 'usage', message: 'create-organization takes no --nme', usage: 'pnpm ledger:admin create-organization --name <name>' } },
    ]);
    const bare = await cli('control', [], { BURSAR_DATA_DIR: path.join(dataDir, 'nowhere') });
    expect([bare.code, (bare.json.error as { message: string }).message]).toEqual([2, 'a command is required']);
  }, CLI_TEST_TIMEOUT_MS);

  it('gives a test ledger\'s credentials in one command, usable through the one origin', async () => {
    const printed = await cli('ledger', ['create-test-client'], {}, true);
    expect(printed.code).toBe(0);
    const made = printed.json;
    expect(made).toMatchObject({
      client_id: expect.stringMatching(/^client_/),
      client_secret: expect.stringMatching(/^sk_test_/),
      ledger_id: expect.any(String),
      mode: 'test',
      base_url: `http://localhost:${ports.GATEWAY_PORT}`,
    });
    const basic = Buffer.from(`${made.client_id}:${made.client_secret}`).toString('base64');
    const grant = await fetch(`${gateway}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(grant.status).toBe(200);
    const { access_token: token } = (await grant.json()) as { access_token: string };
    const ledgers = (await (await fetch(`${gateway}/ledger/v1/ledgers`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { id: string }[] };
    expect(ledgers.data.map((l) => l.id)).toEqual([made.ledger_id]);

    // Bodies and Idempotency-Key arrive unchanged: without the key a write is refused, with it replayed.
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const [id, type] of [['cash:main', 'asset'], ['sales:main', 'revenue']]) {
      const account = await fetch(`${gateway}/ledger/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ id, name: id, type, currency: 'USD' }) });
      expect(account.status).toBe(201);
    }
    const sale = JSON.stringify({
      postings: [
        { account: 'cash:main', amount: '500', currency: 'USD', direction: 'debit' },
        { account: 'sales:main', amount: '500', currency: 'USD', direction: 'credit' },
      ],
    });
    const post = (key?: string) =>
      fetch(`${gateway}/ledger/v1/transactions`, { method: 'POST', headers: { ...headers, ...(key && { 'idempotency-key': key }) }, body: sale });
    expect((await post()).status).toBe(422);
    const first = await post('sale-1');
    const again = await post('sale-1');
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { data: { id: string } }).data.id).toBe(((await first.json()) as { data: { id: string } }).data.id);

    const metadata = (await (await fetch(`${gateway}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint: string };
    expect(metadata.token_endpoint).toBe(`http://localhost:${ports.GATEWAY_PORT}/oauth/token`);
    expect((await fetch(`${gateway}/healthz`)).status).toBe(200);
  }, CLI_TEST_TIMEOUT_MS);

  it('runs every ledger operator command bare, with its effect visible through the gateway', async () => {
    const organization = await ok('ledger', 'create-organization', '--name', 'Bare Books');
    const ledger = await ok('ledger', 'create-ledger', '--organization', String(organization.id), '--name', 'Main', '--mode', 'test');
    const client = await ok(
      'ledger', 'create-client', '--organization', String(organization.id), '--ledger', String(ledger.id), '--mode', 'test', '--scopes', 'ledger:read,ledger:write',
    );
    const form = `grant_type=client_credentials&client_id=${client.client_id}&client_secret=${client.client_secret}`;
    const grant = await fetch(`${gateway}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const { access_token: token } = (await grant.json()) as { access_token: string };
    const write = (id: string) =>
      fetch(`${gateway}/ledger/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: id, type: 'asset', currency: 'USD' }),
      });

    expect(await ok('ledger', 'suspend-organization', '--organization', String(organization.id))).toMatchObject({ suspended_at: expect.any(String) });
    const refused = await write('while-suspended');
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'tenant_suspended']);
    expect(await ok('ledger', 'unsuspend-organization', '--organization', String(organization.id))).toMatchObject({ suspended_at: null });
    expect((await write('after-suspension')).status).toBe(201);

    expect(await ok('ledger', 'set-plan', '--organization', String(organization.id), '--plan', 'growth')).toMatchObject({ plan: 'growth' });
    expect(await ok('ledger', 'rotate-secret-key')).toMatchObject({ object: 'secret_key_rotation', unreadable: 0 });
  }, CLI_TEST_TIMEOUT_MS);

  it('runs every control operator command bare', async () => {
    const rotated = await ok('control', 'rotate-cosign-key');
    expect(rotated).toMatchObject({ kid: expect.any(String), activates_at: expect.any(String) });
    const published = () => fetch(`${gateway}/.well-known/jwks.json`).then(async (r) => ((await r.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid));
    expect(await pollUntil(published, (kids) => kids.includes(String(rotated.kid)), 10_000, 200)).toContain(rotated.kid);
    expect(await ok('control', 'rotate-secret-key')).toMatchObject({ object: 'secret_key_rotation', unreadable: 0 });
  }, CLI_TEST_TIMEOUT_MS);

  it('routes a control request with its body and identity token through the one origin', async () => {
    const { DEV_IDENTITY_SECRET: secret } = JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
    const issued = await fetch(`http://127.0.0.1:${ports.DEV_IDENTITY_PORT}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`ops@example.com:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=control',
    });
    const { access_token: token } = (await issued.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${gateway}/control/v1/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'Gateway Works' }) });
    expect(created.status).toBe(201);
    const listed = (await (await fetch(`${gateway}/control/v1/workspaces`, { headers })).json()) as { data: { name: string }[] };
    expect(listed.data.map((w) => w.name)).toContain('Gateway Works');
    expect((await fetch(`${gateway}/metrics`)).status).toBe(404);
  }, CLI_TEST_TIMEOUT_MS);

  it('lets the environment win over the settings file, and reports failures as JSON on stderr', async () => {
    const elsewhere = await cli('ledger', ['create-organization', '--name', 'x'], { LEDGER_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.json.error).toMatchObject({ code: 'database_unreachable', message: expect.stringContaining('127.0.0.1:1') });

    const badValue = await cli('control', ['rotate-cosign-key'], { CONTROL_SECRET_KEY: 'short' });
    expect([badValue.code, (badValue.json.error as { code: string }).code]).toEqual([1, 'configuration']);

    const missing = await cli('ledger', ['create-ledger', '--name', 'x', '--mode', 'test']);
    expect([missing.code, missing.json.error]).toEqual([2, { code: 'usage', message: '--organization is required', usage: expect.stringContaining('create-ledger --organization') }]);
    const unknown = await cli('control', ['drop-everything']);
    expect([unknown.code, (unknown.json.error as { message: string }).message]).toEqual([2, 'unknown command drop-everything']);
    const notFound = await cli('ledger', ['create-ledger', '--organization', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--mode', 'test']);
    expect([notFound.code, (notFound.json.error as { message: string }).message]).toEqual([1, expect.stringContaining('No such organization')]);
  }, CLI_TEST_TIMEOUT_MS);
});
