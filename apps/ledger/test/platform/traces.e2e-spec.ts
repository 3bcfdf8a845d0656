import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { runMigrations } from '@bursar/service-kit';
import {
  AppProcess, createTestDatabase, OtlpReceiver, pollUntil, ReceivedSpan, startAppProcess, startOtlpReceiver, startWebhookReceiver,
  startWorkerProcess, TestDatabase, testRedisUrl, testSecretKey, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { ledgerDataSourceOptions } from '../../src/database/ledger-database';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';

/** W3C traceparent: version, trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const TRANSFERS = 4;

/** A caller's own span: its trace id, and the span the ledger's server span becomes a child of. */
function callerSpan(): { traceId: string; spanId: string; header: string } {
  const [traceId, spanId] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/** The worker's span for one webhook delivery, in the given trace. */
const isDelivery = (span: ReceivedSpan, traceId?: string) =>
  span.traceId === traceId && span.service === 'webhook-worker' && span.name === 'webhook deliver';

/**
 * New transactions are written by ledger_write_batch, several requests' items in one call sent
 * from whichever request started the batch: each item carries its own request's trace context to
 * its events, so each `transaction.created` webhook continues the trace of the request that made it.
 * A reconciliation run executed inside its request writes its match events in one statement of its
 * own, with that request's trace context too.
 */
describe('ledger traces from a batched write or a reconciliation run to the webhooks it causes', () => {
  const webhookEnv = webhookTestEnv('ledger-traces', 1);
  let otlp: OtlpReceiver;
  let hooks: WebhookReceiver;
  let db: TestDatabase;
  let data: DataSource;
  let client: TestClient;
  let ledger: AppProcess;
  let worker: WorkerProcess;
  let origin: string;
  let auth: Record<string, string>;

  /** A write to the ledger process, in the caller's trace when given. */
  const post = (path: string, caller?: { header: string }) => {
    const req = request(origin).post(`/ledger/v1${path}`).set(auth).set('Idempotency-Key', randomUUID());
    return caller ? req.set('traceparent', caller.header) : req;
  };
  /** Trace ids of the webhooks of `type` received so far, by resource id. */
  const webhookTraces = (type: string) =>
    new Map(
      hooks.received
        .map((w) => ({ event: JSON.parse(w.body), traceparent: String(w.headers.traceparent) }))
        .filter(({ event }) => event.type === type)
        .map(({ event, traceparent }) => [event.resource_id as string, TRACEPARENT.exec(traceparent)?.[1]]),
    );

  beforeAll(async () => {
    [otlp, hooks, db] = await Promise.all([startOtlpReceiver(), startWebhookReceiver(), createTestDatabase('ledger_traces')]);
    await runMigrations(ledgerDataSourceOptions(db.url));
    data = await new DataSource(ledgerDataSourceOptions(db.url)).initialize();
    client = await new LedgerFixtures(data).client();
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };
    [ledger, worker] = await Promise.all([
      startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', {
        LEDGER_DATABASE_URL: db.url, LEDGER_SECRET_KEY: testSecretKey(), REDIS_URL: testRedisUrl(), NODE_ENV: 'test', ...webhookEnv, ...tracing,
      }),
      startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv, ...tracing }),
    ]);
    origin = `http://127.0.0.1:${ledger.port}`;
    auth = { Authorization: `Bearer ${await accessToken(origin, client)}` };
    const enabled = ['transaction.created', 'reconciliation.match_created', 'reconciliation.run_completed'];
    await post('/webhook_endpoints').send({ url: hooks.url, enabled_events: enabled }).expect(201);
    await post('/accounts').send({ id: 'cash', name: 'Cash', type: 'asset', currency: 'USD' }).expect(201);
    await post('/accounts').send({ id: 'deposits', name: 'Deposits', type: 'liability', currency: 'USD' }).expect(201);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([ledger?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), hooks?.close()]);
    await data?.destroy();
    await db?.drop();
  });

  it("gives each transaction.created webhook its own request's trace, though the requests' items went in one batch", async () => {
    // Holding the ledger's write lock (as a period close does) stalls the first batch, so the
    // requests after it queue up in the batcher and go together in the next call.
    const lock = data.createQueryRunner();
    await lock.startTransaction();
    await lock.query(`SELECT pg_advisory_xact_lock(hashtextextended('books:' || $1::text, 0))`, [client.ledgerId]);
    const callers = Array.from({ length: TRANSFERS }, callerSpan);
    const writes = callers.map((caller) =>
      post('/transactions', caller)
        .send({
          postings: [
            { account: 'cash', amount: '100', currency: 'USD', direction: 'debit' },
            { account: 'deposits', amount: '100', currency: 'USD', direction: 'credit' },
          ],
        })
        .then((res) => res),
    );
    try {
      await pollUntil(
        // Not on `lock`'s connection: inside a transaction the activity view is read once.
        async () =>
          (await data.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%ledger_write_batch(%' AND wait_event_type = 'Lock'`))[0].n,
        (waiting: number) => waiting > 0,
        20_000,
      );
      // Time for the other requests to reach the batcher behind it, with room for a loaded machine.
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      await lock.commitTransaction();
      await lock.release();
    }
    const created = (await Promise.all(writes)).map((res) => {
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    });
    // Events of one ledger_write_batch call share its database transaction: some requests did share a call.
    const calls: unknown[] = await data.query(`SELECT DISTINCT xid FROM events WHERE type = 'transaction.created'`);
    expect(calls.length).toBeLessThan(TRANSFERS);

    // Each webhook continues the trace of the request that created its transaction.
    await hooks.waitFor(TRANSFERS, 15_000);
    const traces = webhookTraces('transaction.created');
    expect(created.map((id) => traces.get(id))).toEqual(callers.map((c) => c.traceId));
    // That trace is the one of the POST's server span in the ledger (the child of the caller's span), and holds the delivery.
    const spans = await pollUntil(
      async (): Promise<ReceivedSpan[]> => [...otlp.spans],
      // The delivery span ends after its own child spans (the outgoing request), so it may be exported in a later batch: wait for it by name.
      (found) => callers.every((c) => found.some((s) => s.parentSpanId === c.spanId) && found.some((s) => isDelivery(s, c.traceId))),
      15_000,
    );
    created.forEach((id, n) => {
      const server = spans.find((s) => s.service === 'ledger' && s.parentSpanId === callers[n].spanId);
      expect(server?.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/ledger/v1/transactions' });
      expect(traces.get(id)).toBe(server?.traceId);
      expect(spans.some((s) => isDelivery(s, server?.traceId))).toBe(true);
    });
  }, 60_000);

  it("gives a reconciliation run's match events the trace of the request that ran it", async () => {
    const caller = callerSpan();
    const items = [{ external_id: 'stmt-1', amount: '100', currency: 'USD', at: new Date().toISOString() }];
    const run = (await post('/reconciliation_runs', caller).send({ source: 'Bank', items }).expect(201)).body.data;
    expect(run).toMatchObject({ status: 'completed', matched_count: 1 });
    const match = run.matched[0].match_id;
    const [matchTrace, runTrace] = await pollUntil(
      async () => [webhookTraces('reconciliation.match_created').get(match), webhookTraces('reconciliation.run_completed').get(run.id)],
      (found) => found.every(Boolean),
      15_000,
    );
    expect({ matchTrace, runTrace }).toEqual({ matchTrace: caller.traceId, runTrace: caller.traceId });
  }, 30_000);
});
