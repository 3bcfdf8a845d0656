import request from 'supertest';
import { runMigrations } from '@bursar/service-kit';
import {
  AppProcess, createTestDatabase, OtlpReceiver, pollUntil, ReceivedSpan, startAppProcess, startOtlpReceiver, startWebhookReceiver,
  startWorkerProcess, TestDatabase, testRedisUrl, testSecretKey, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { controlDataSourceOptions } from '../../src/database/control-database';
import { bearer } from '../control-fixtures';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

/** W3C traceparent: version, trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('traces from a request through the outbox and the queue to the webhook it causes', () => {
  const webhookEnv = webhookTestEnv('traces', 1);
  let otlp: OtlpReceiver;
  let hooks: WebhookReceiver;
  let idp: TestIdentityProvider;
  let db: TestDatabase;
  let control: AppProcess;
  let worker: WorkerProcess;

  beforeAll(async () => {
    [otlp, hooks, idp, db] = await Promise.all([
      startOtlpReceiver(), startWebhookReceiver(), startTestIdentityProvider(['owner']), createTestDatabase('control_traces'),
    ]);
    await runMigrations(controlDataSourceOptions(db.url));
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };
    [control, worker] = await Promise.all([
      startAppProcess('apps/control/src/main.ts', 'CONTROL_PORT', {
        CONTROL_DATABASE_URL: db.url, CONTROL_SECRET_KEY: testSecretKey(), REDIS_URL: testRedisUrl(), NODE_ENV: 'test', LOG_LEVEL: 'info',
        ...idp.env, ...webhookEnv, ...tracing,
      }),
      startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv, ...tracing }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([control?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), hooks?.close(), idp?.close()]);
    await db?.drop();
  });

  it("gives a held payment's approval and its webhook one trace: control, Postgres, the worker, and the receiver's traceparent", async () => {
    const http = () => request(`http://127.0.0.1:${control.port}`);
    const owner = await idp.token('owner');
    await http().post('/control/v1/workspaces').set(bearer(owner)).send({ name: 'Traces', slug: 'traces' }).expect(201);
    const ws = (path: string) => `/control/v1/workspaces/traces${path}`;
    await http().post(ws('/webhook_endpoints')).set(bearer(owner)).send({ url: hooks.url, enabled_events: ['approval.resolved'] }).expect(201);
    const agent = (await http().post(ws('/agents')).set(bearer(owner)).send({ name: 'buyer', skip_starter_policy: true }).expect(201)).body.data;
    await http().post(ws('/policies')).set(bearer(owner)).send({ agent_id: agent.id, approval_threshold_cents: 1_000 }).expect(201);
    const budget = (await http().post('/control/v1/agent/budgets').set(bearer(agent.api_key)).send({ budget_cents: 10_000 }).expect(201)).body.data;
    const intent = (
      await http()
        .post('/control/v1/agent/payment_intents')
        .set(bearer(agent.api_key))
        .send({ budget_id: budget.id, idempotency_key: 'traced-1', amount_cents: 3_000, counterparty: 'acme' })
        .expect(202)
    ).body.data;
    await http().post(ws(`/payment_intents/${intent.id}/approve`)).set(bearer(owner)).expect(200);

    const [webhook] = await hooks.waitFor(1, 15_000);
    expect(JSON.parse(webhook.body)).toMatchObject({ type: 'approval.resolved' });
    const traceId = TRACEPARENT.exec(String(webhook.headers.traceparent))?.[1];
    expect(traceId).toBeDefined();

    const inTrace = (): Promise<ReceivedSpan[]> => Promise.resolve(otlp.spans.filter((s) => s.traceId === traceId));
    const isPostgres = (s: ReceivedSpan) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql';
    const spans = await pollUntil(
      inTrace,
      // Spans are exported as they end, a parent after its children: wait for the delivery span itself and the request's root span.
      (found) =>
        found.some((s) => s.service === 'webhook-worker' && s.name === 'webhook deliver') &&
        found.some((s) => s.service === 'control' && !s.parentSpanId) &&
        found.some((s) => s.service === 'control' && isPostgres(s)),
      15_000,
    );
    // The trace is the approval request's, the delivery span a child of one of its spans.
    const approval = spans.find((s) => s.service === 'control' && !s.parentSpanId);
    expect(String(approval?.attributes['http.route'] ?? approval?.name)).toContain('/approve');
    const delivery = spans.find((s) => s.service === 'webhook-worker' && s.name === 'webhook deliver');
    expect(spans.filter((s) => s.service === 'control').map((s) => s.spanId)).toContain(delivery?.parentSpanId);
    // The webhook request's parent is the worker's client span for it.
    const parentOfRequest = TRACEPARENT.exec(String(webhook.headers.traceparent))?.[2];
    expect(spans.find((s) => s.spanId === parentOfRequest)?.service).toBe('webhook-worker');
    // The approval's access log line names its trace and span.
    const lines = control.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const logged = lines.find((l) => l.req?.url?.endsWith(`/payment_intents/${intent.id}/approve`));
    expect(logged).toMatchObject({ trace_id: traceId, span_id: approval?.spanId });
  }, 60_000);
});
