import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { digestSecret, generateSecretKey, randomToken } from '@bursar/crypto';
import { runScript, startWebhookReceiver, WebhookReceiver } from '@bursar/testing';
import { call, PrivateRedis, ServiceProcess } from './chaos-kit';
import { PrivatePostgres } from './private-postgres';


/** Accounts the ledger writers move money between: a few per currency, so transfers contend. */
export const LEDGER_ACCOUNTS: Record<string, string[]> = {
  USD: ['usd:cash', 'usd:bank', 'usd:card', 'usd:float'],
  EUR: ['eur:cash', 'eur:bank', 'eur:float'],
};

export interface ControlAgent {
  key: string;
  agentId: string;
  workspaceId: string;
  budgetId: string;
  policyId: string;
}

/** Cosigning key reload, JWKS lifetime and activation delay of the campaign's control replicas. */
export const COSIGN_TIMING = { COSIGN_KEY_RELOAD_MS: '5000', COSIGN_JWKS_MAX_AGE_SECONDS: '5', COSIGN_KEY_ACTIVATION_DELAY_MS: '12000' };

/**
 * Everything the campaign runs, on a private Postgres and a private Redis: `replicas` ledger and
 * control processes and as many webhook workers (on one database each and one Redis), a local
 * webhook receiver, one ledger organization with a client, accounts and a webhook endpoint, and a
 * control workspace seeded directly in its database.
 */
export class ChaosStack {
  ledgers: ServiceProcess[] = [];
  controls: ServiceProcess[] = [];
  workers: ServiceProcess[] = [];
  ledgerToken = '';
  ledgerClient = { id: '', secret: '' };
  organizationId = '';
  ledgerId = '';
  ledgerDb!: Client;
  controlDb!: Client;
  ledgerEnv: Record<string, string> = {};
  controlEnv: Record<string, string> = {};
  workerEnv: Record<string, string> = {};

  private constructor(
    readonly pg: PrivatePostgres,
    readonly redis: PrivateRedis,
    readonly receiver: WebhookReceiver,
    readonly replicas: number,
  ) {}

  static async start(replicas: number): Promise<ChaosStack> {
    const pg = await PrivatePostgres.start();
    const redis = await PrivateRedis.start();
    const receiver = await startWebhookReceiver();
    const stack = new ChaosStack(pg, redis, receiver, replicas);
    try {
      await stack.boot();
    } catch (err) {
      await stack.close();
      throw err;
    }
    return stack;
  }

  private async boot(): Promise<void> {
    const webhooks = {
      WEBHOOK_SECRET_KEY: generateSecretKey(),
      WEBHOOK_QUEUE_PREFIX: `chaos-${randomBytes(4).toString('hex')}`,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // Failed attempts retried within a second, and jobs lost with Redis published again after 3 s.
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RELAY_INTERVAL_MS: '25',
      WEBHOOK_REPUBLISH_AFTER_MS: '3000',
      REDIS_URL: this.redis.url,
      NODE_ENV: 'production',
    };
    this.ledgerEnv = {
      ...webhooks,
      LEDGER_DATABASE_URL: await this.pg.createDatabase('chaos_ledger'),
      LEDGER_SECRET_KEY: generateSecretKey(),
      // The per-client budgets would turn 20 writers into 429s; the campaign is about faults.
      LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '1000000',
      LEDGER_RATE_LIMIT_READS_PER_SECOND: '1000000',
      // Replicas behind one address accept each other's tokens.
      LEDGER_PUBLIC_URL: 'http://ledger.chaos.invalid',
    };
    this.controlEnv = {
      ...webhooks,
      CONTROL_DATABASE_URL: await this.pg.createDatabase('chaos_control'),
      CONTROL_SECRET_KEY: generateSecretKey(),
      COSIGN_ISSUER: 'https://control.chaos.invalid',
      AGENT_RATE_LIMIT_PER_MINUTE: '100000000',
      // The production rule at a smaller scale (30 s / 60 s / 120 s by default), so a rotation activates within the scenario.
      ...COSIGN_TIMING,
    };
    // A killed worker's in-flight deliveries go back to the queue after 5 s instead of 30.
    this.workerEnv = { ...webhooks, WORKER_LOCK_DURATION_MS: '5000', WEBHOOK_TIMEOUT_MS: '5000' };
    await Promise.all([
      runScript('apps/ledger/src/migrate.ts', [], this.ledgerEnv),
      runScript('apps/control/src/migrate.ts', [], this.controlEnv),
    ]);
    await this.connectDbs();
    // Replica by replica: the first control boot creates the cosigning key, the others load it.
    for (let r = 0; r < this.replicas; r++) {
      const started = await Promise.allSettled([
        ServiceProcess.start(`ledger-${r}`, 'apps/ledger/src/main.ts', 'LEDGER_PORT', this.ledgerEnv),
        ServiceProcess.start(`control-${r}`, 'apps/control/src/main.ts', 'CONTROL_PORT', this.controlEnv),
        ServiceProcess.start(`worker-${r}`, 'apps/webhook-worker/src/main.ts', 'WORKER_PORT', this.workerEnv),
      ]);
      // Kept even when a sibling failed, so close() stops them.
      started.forEach((p, i) => p.status === 'fulfilled' && [this.ledgers, this.controls, this.workers][i].push(p.value));
      const failed = started.find((p): p is PromiseRejectedResult => p.status === 'rejected');
      if (failed) throw failed.reason;
    }
    await this.seedLedger();
  }

  /** Reconnects the campaign's own database sessions (after a Postgres restart cut them). */
  async reconnect(): Promise<void> {
    await Promise.all([this.ledgerDb.end().catch(() => undefined), this.controlDb.end().catch(() => undefined)]);
    await this.connectDbs();
  }

  /** The campaign's own sessions for its checks; a restart's disconnect is expected, not fatal. */
  private async connectDbs(): Promise<void> {
    this.ledgerDb = new Client({ connectionString: this.ledgerEnv.LEDGER_DATABASE_URL });
    this.controlDb = new Client({ connectionString: this.controlEnv.CONTROL_DATABASE_URL });
    this.ledgerDb.on('error', () => undefined);
    this.controlDb.on('error', () => undefined);
    await Promise.all([this.ledgerDb.connect(), this.controlDb.connect()]);
  }

  ledgerAdmin = async (...args: string[]) => JSON.parse(await runScript('apps/ledger/src/admin.ts', args, this.ledgerEnv));
  controlAdmin = async (...args: string[]) => JSON.parse(await runScript('apps/control/src/admin.ts', args, this.controlEnv));

  async ledgerTokenFor(clientId: string, secret: string, replica = 0): Promise<{ status: number | string; token?: string }> {
    const res = await call('POST', `${this.ledgers[replica].url}/oauth/token`, {
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      form: 'grant_type=client_credentials',
    });
    return { status: res.status, token: res.body?.access_token };
  }

  private async seedLedger(): Promise<void> {
    this.organizationId = (await this.ledgerAdmin('create-organization', '--name', 'Chaos')).id;
    this.ledgerId = (await this.ledgerAdmin('create-ledger', '--organization', this.organizationId, '--name', 'chaos', '--mode', 'test')).id;
    const client = await this.ledgerAdmin(
      'create-client', '--organization', this.organizationId, '--ledger', this.ledgerId, '--mode', 'test',
      '--scopes', 'ledger:read,ledger:write,ledger:clients:read,ledger:clients:write',
    );
    this.ledgerClient = { id: client.client_id, secret: client.client_secret };
    const issued = await this.ledgerTokenFor(client.client_id, client.client_secret);
    if (!issued.token) throw new Error(`no ledger token: ${issued.status}`);
    this.ledgerToken = issued.token;
    // First, so every event the campaign causes has a delivery.
    const endpoint = await this.ledgerCall('POST', '/webhook_endpoints', { url: this.receiver.url });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    for (const [currency, ids] of Object.entries(LEDGER_ACCOUNTS)) {
      for (const id of ids) {
        const res = await this.ledgerCall('POST', '/accounts', { id, name: id, type: 'asset', currency });
        if (res.status !== 201) throw new Error(`account ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }

  ledgerCall(method: string, route: string, body?: unknown, replica = 0, headers: Record<string, string> = {}) {
    return call(method, `${this.ledgers[replica].url}/ledger/v1${route}`, { headers: { Authorization: `Bearer ${this.ledgerToken}`, ...headers }, body });
  }

  /** A workspace, an agent with a key (stored as the service stores it), a policy and a budget, inserted directly. */
  async seedControlAgent(label: string, budgetCents: number, perTransactionCapCents = 1_000_000): Promise<ControlAgent> {
    const db = this.controlDb;
    const [{ id: workspaceId }] = (await db.query(`INSERT INTO workspaces (name, slug) VALUES ($1, $1) RETURNING id`, [`chaos-${label}-${randomBytes(3).toString('hex')}`])).rows;
    const key = `krt_test_${randomToken(32)}`;
    const agentId = randomUUID();
    await db.query(
      `INSERT INTO agents (id, workspace_id, name, status, mode, key_lookup, key_digest, api_key_prefix)
       VALUES ($1, $2, $3, 'active', 'test', $4, $5, $6)`,
      [agentId, workspaceId, `chaos-${label}`, key.slice(0, 'krt_test_'.length + 16), digestSecret(key), key.slice(0, 12)],
    );
    const [{ id: policyId }] = (
      await db.query(
        `INSERT INTO policies (workspace_id, agent_id, status, mode, per_transaction_cap_cents) VALUES ($1, $2, 'active', 'blocklist', $3) RETURNING id`,
        [workspaceId, agentId, perTransactionCapCents],
      )
    ).rows;
    const [{ id: budgetId }] = (
      await db.query(`INSERT INTO budgets (workspace_id, agent_id, budget_cents, currency, status) VALUES ($1, $2, $3, 'USD', 'active') RETURNING id`, [
        workspaceId, agentId, budgetCents,
      ])
    ).rows;
    return { key, agentId, workspaceId, budgetId, policyId };
  }

  async close(): Promise<void> {
    await Promise.all([...this.ledgers, ...this.controls, ...this.workers].map((p) => p.stop().catch(() => undefined)));
    await this.ledgerDb?.end().catch(() => undefined);
    await this.controlDb?.end().catch(() => undefined);
    await this.receiver.close();
    await this.redis.stop();
    await this.pg.destroy();
  }
}
