import Redis from 'ioredis';
import { Client } from 'pg';
import request from 'supertest';
import { generateSecretKey } from '@bursar/crypto';
import { WEBHOOK_DELIVERY_QUEUE } from '@bursar/queue';
import {
  AppProcess, createTestDatabase, pollUntil, runScript, startAppProcess, startWebhookReceiver, startWorkerProcess,
  TestDatabase, testRedisUrl, webhookTestEnv, WebhookReceiver,
} from '@bursar/testing';
import { asPromql, infraQueries } from '../src/infra-queries';
import { exposedNames, unexposedMetrics } from '../src/promql-selectors';

/** Series Prometheus makes itself for every target rather than reading them from /metrics. */
const PROMETHEUS_OWN = new Set(['up']);

/**
 * The alert rules and dashboards name only metrics the services expose: the three deployables run
 * as processes, get some traffic (requests, an error, a delivered webhook), and each one's /metrics
 * is checked against every selector that targets it by `job`.
 */
describe('alerts and dashboards use exposed metrics', () => {
  const webhooks = webhookTestEnv('ops');
  const redis = testRedisUrl();
  let ledgerDb: TestDatabase;
  let controlDb: TestDatabase;
  let ledger: AppProcess;
  let control: AppProcess;
  let worker: AppProcess | undefined;
  let receiver: WebhookReceiver;
  const exposed: Record<string, Set<string>> = {};
  let auth: Record<string, string>;
  const ledgerHttp = () => request(`http://127.0.0.1:${ledger.port}`);
  const scrape = async (app: AppProcess) => (await request(`http://127.0.0.1:${app.port}`).get('/metrics').expect(200)).text;

  beforeAll(async () => {
    [ledgerDb, controlDb] = await Promise.all([createTestDatabase('ops_ledger'), createTestDatabase('ops_control')]);
    const ledgerEnv = {
      ...webhooks, REDIS_URL: redis, LEDGER_DATABASE_URL: ledgerDb.url, LEDGER_SECRET_KEY: generateSecretKey(),
      LEDGER_PUBLIC_URL: 'http://ledger.ops.invalid',
    };
    const controlEnv = {
      ...webhooks, REDIS_URL: redis, CONTROL_DATABASE_URL: controlDb.url, CONTROL_SECRET_KEY: generateSecretKey(),
      COSIGN_ISSUER: 'https://control.ops.invalid',
    };
    await Promise.all([runScript('apps/ledger/src/migrate.ts', [], ledgerEnv), runScript('apps/control/src/migrate.ts', [], controlEnv)]);
    [ledger, control] = await Promise.all([
      startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', ledgerEnv),
      startAppProcess('apps/control/src/main.ts', 'CONTROL_PORT', controlEnv),
    ]);
    receiver = await startWebhookReceiver();
  }, 90_000);
  afterAll(async () => {
    await Promise.all([ledger?.stop(), control?.stop(), worker?.stop(), receiver?.close()]);
    await Promise.all([ledgerDb?.drop(), controlDb?.drop()]);
  });

  it('drives traffic: requests, an error, a webhook that waits in the queue, then is delivered', async () => {
    const client = JSON.parse(await runScript('apps/ledger/src/admin.ts', ['create-test-client'], {
      LEDGER_DATABASE_URL: ledgerDb.url, LEDGER_SECRET_KEY: generateSecretKey(), REDIS_URL: redis,
    }));
    const token = (await ledgerHttp().post('/oauth/token').auth(client.client_id, client.client_secret)
      .type('form').send({ grant_type: 'client_credentials' }).expect(200)).body.access_token;
    auth = { Authorization: `Bearer ${token}` };
    await ledgerHttp().post('/ledger/v1/webhook_endpoints').set(auth).send({ url: receiver.url }).expect(201);
    await ledgerHttp().post('/ledger/v1/accounts').set(auth).send({ id: 'cash', name: 'Cash', type: 'asset', currency: 'USD' }).expect(201);
    for (const app of [ledger, control]) {
      const http = request(`http://127.0.0.1:${app.port}`);
      await http.get('/readyz').expect(200);
      await http.get('/no-such-route').expect(404);
    }
    await request(`http://127.0.0.1:${control.port}`).get('/control/v1/workspaces').expect(401);

    // With no worker yet the job waits in the list KEDA's ScaledObject watches (<prefix>:<queue>:wait).
    const queueRedis = new Redis(redis);
    try {
      const waitList = `${webhooks.WEBHOOK_QUEUE_PREFIX}:${WEBHOOK_DELIVERY_QUEUE}:wait`;
      await pollUntil(() => queueRedis.llen(waitList), (n) => n > 0);
    } finally {
      queueRedis.disconnect();
    }
    const started = await startWorkerProcess({ ...webhooks, REDIS_URL: redis });
    worker = started;
    await request(`http://127.0.0.1:${started.port}`).get('/readyz').expect(200);
    await receiver.waitFor(1, 15_000);
    // The attempt is counted once its report is sent, just after the receiver answered.
    await pollUntil(() => scrape(started), (text) => text.includes('webhook_deliveries_total{service="ledger",outcome="succeeded"}'));

    exposed.control = exposedNames(await scrape(control));
    exposed.ledger = exposedNames(await scrape(ledger));
    exposed['webhook-worker'] = exposedNames(await scrape(started));
  }, 60_000);

  it('every metric an alert or a dashboard panel uses is exposed by the service it selects', () => {
    // Filled by the traffic test above (run the file whole).
    expect(Object.keys(exposed).sort()).toEqual(['control', 'ledger', 'webhook-worker']);
    const problems = infraQueries().flatMap((q) => unexposedMetrics(asPromql(q.expr), exposed, PROMETHEUS_OWN).map((p) => `${q.source}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('reports a name no service exposes, checked against the same scrapes', () => {
    expect(unexposedMetrics('sum(rate(webhook_deliveries_total{job=~"control|webhook-worker"}[5m]))', exposed, PROMETHEUS_OWN))
      .toEqual(['webhook_deliveries_total: not exposed by control']);
  });

  describe('the gauges the alerts add', () => {
    const gauge = async (app: AppProcess, series: string) => {
      const line = (await scrape(app)).split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const inTransaction = async (statement: string, body: () => Promise<void>) => {
      const session = new Client({ connectionString: ledgerDb.url });
      await session.connect();
      try {
        await session.query('BEGIN');
        await session.query(statement);
        await body();
      } finally {
        await session.query('ROLLBACK');
        await session.end();
      }
    };

    it('readiness_dependency_up reports each dependency of the last probe', async () => {
      await ledgerHttp().get('/readyz').expect(200);
      expect(await gauge(ledger, 'readiness_dependency_up{dependency="postgres"}')).toBe(1);
      expect(await gauge(ledger, 'readiness_dependency_up{dependency="redis"}')).toBe(1);
    });

    it('webhook_outbox_lag_seconds grows while the relay cannot move an event, and falls back once it can', async () => {
      expect(await gauge(ledger, 'webhook_outbox_lag_seconds{stage="events"}')).toBe(0);
      // The relay takes the event, then waits on the deliveries table; its event stays unrelayed.
      await inTransaction('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE', async () => {
        await ledgerHttp().post('/ledger/v1/accounts').set(auth).send({ id: 'bank', name: 'Bank', type: 'asset', currency: 'USD' }).expect(201);
        await pollUntil(() => gauge(ledger, 'webhook_outbox_lag_seconds{stage="events"}'), (v) => (v ?? 0) >= 1, 5_000, 100);
      });
      await pollUntil(() => gauge(ledger, 'webhook_outbox_lag_seconds{stage="events"}'), (v) => v === 0);
    });

    it('ledger_events_tail_held_back_seconds counts an open transaction holding an xid, and drops when it ends', async () => {
      await inTransaction('SELECT pg_current_xact_id()', async () => {
        await pollUntil(() => gauge(ledger, 'ledger_events_tail_held_back_seconds'), (v) => (v ?? 0) >= 1, 5_000, 100);
      });
      expect(await gauge(ledger, 'ledger_events_tail_held_back_seconds')).toBeLessThan(1);
    });
  });
});
