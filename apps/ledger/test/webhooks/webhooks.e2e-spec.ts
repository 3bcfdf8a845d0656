import type { INestApplication } from '@nestjs/common';
import Stripe from 'stripe';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createLogger } from '@bursar/service-kit';
import {
  pollUntil, startWebhookReceiver, startWorkerProcess, testRedisUrl, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { LedgerScope } from '../../src/common/mode';
import { EventsService } from '../../src/events/events.service';
import { createLedgerApp } from '../../src/ledger.app';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

const stripe = new Stripe('sk_test_unused');

describe('Ledger webhooks', () => {
  const webhookEnv = webhookTestEnv('ledger');
  let t: LedgerTestApp;
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let client: TestClient;
  let token: string;
  let scope: LedgerScope;

  const http = () => request(t.app.getHttpServer());
  const api = {
    get: (path: string) => http().get(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string, body?: object) => http().post(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) => http().patch(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => http().delete(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`),
  };
  const record = (type: string, resourceId: string, data: object = { id: resourceId }) =>
    t.app.get(DataSource).transaction((m) => t.app.get(EventsService).record(m, scope, type, resourceId, data));
  const createEndpoint = async (body: object = {}) => (await api.post('/webhook_endpoints', { url: receiver.url, ...body }).expect(201)).body.data;

  /** The fields of a delivery these tests read. */
  interface Delivery {
    id: string;
    status: string;
    attempt: number;
    request_headers: Record<string, string>;
    request_body: string;
    [field: string]: unknown;
  }
  /** Polls a delivery until `done` holds (deliveries finish asynchronously, in the worker). */
  const deliveryWhen = (id: string, done: (d: Delivery) => boolean): Promise<Delivery> =>
    pollUntil(async () => (await api.get(`/webhook_deliveries/${id}`).expect(200)).body.data, done);
  /** The endpoint's one delivery, once the relay has made it. */
  async function onlyDelivery(endpointId: string): Promise<Delivery> {
    const list = await pollUntil(
      async (): Promise<Delivery[]> => (await api.get(`/webhook_endpoints/${endpointId}/deliveries`).expect(200)).body.data,
      (l) => l.length > 0,
    );
    expect(list).toHaveLength(1);
    return list[0];
  }
  const attemptsOf = (deliveryId: string): Promise<{ attempt: number; outcome: string; response_status: number | null }[]> =>
    t.app.get(DataSource).query(
      'SELECT attempt, outcome, response_status FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY started_at',
      [deliveryId],
    );

  beforeAll(async () => {
    t = await startLedgerTestApp('webhooks', webhookEnv);
    worker = await startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv });
    client = await LedgerFixtures.of(t).client();
    token = await accessToken(t, client);
    scope = { organizationId: client.organizationId, mode: 'test', ledgerId: client.ledgerId };
  }, 30_000);
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    // Endpoints of one test must not receive the next test's events.
    for (const e of (await api.get('/webhook_endpoints').expect(200)).body.data) await api.delete(`/webhook_endpoints/${e.id}`).expect(204);
    await receiver.close();
  });

  it('creates an endpoint whose secret is shown once, and lists it without paging', async () => {
    const created = await createEndpoint({ description: 'books', enabled_events: ['transaction.*'] });
    expect(created).toEqual({
      object: 'webhook_endpoint',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: receiver.url,
      description: 'books',
      mode: 'test',
      active: true,
      enabled_events: ['transaction.*'],
      header_brand: null,
      last_delivered_at: null,
      created_at: expect.any(String),
      signing_secret: expect.stringMatching(/^whsec_test_[A-Za-z0-9_-]{40,}$/),
      signing_secret_note: expect.any(String),
    });
    const read = await api.get(`/webhook_endpoints/${created.id}`).expect(200);
    expect(read.body.data).not.toHaveProperty('signing_secret');
    const list = await api.get('/webhook_endpoints?limit=1000&cursor=anything').expect(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, livemode: false });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([created.id]);
    const stored = await t.app.get(DataSource).query('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [created.id]);
    expect(stored[0].secret_sealed).not.toContain(created.signing_secret);
  });

  it('documents the webhook routes in the OpenAPI document', async () => {
    const doc = (await http().get('/ledger/v1/openapi.json').expect(200)).body;
    expect(JSON.stringify(doc.paths['/ledger/v1/webhook_endpoints/{id}/rotate_secret'].post.responses['200'])).toContain('WebhookEndpointResponse');
    expect(doc.paths['/ledger/v1/webhook_deliveries/{id}/redeliver'].post.responses).toHaveProperty('201');
    expect(doc.components.schemas.WebhookDeliveryResponse.properties).toHaveProperty('enqueue_kind');
    expect(doc.paths).toHaveProperty(['/ledger/v1/webhook_endpoints/{id}/deliveries/failed_count']);
  });

  it('validates bodies and answers 404 for unknown endpoints', async () => {
    expect((await api.post('/webhook_endpoints', {}).expect(422)).body.error).toMatchObject({ code: 'invalid_request' });
    expect((await api.post('/webhook_endpoints', { url: 'ftp://example.com/x' }).expect(422)).body.error.param).toBe('url');
    await api.post('/webhook_endpoints', { url: receiver.url, enabled_events: ['Not An Event'] }).expect(422);
    for (const path of ['/webhook_endpoints/00000000-0000-4000-8000-000000000000', '/webhook_endpoints/nope', '/webhook_deliveries/nope']) {
      expect((await api.get(path).expect(404)).body.error.code).toBe('not_found');
    }
    await api.patch('/webhook_endpoints/00000000-0000-4000-8000-000000000000', { active: false }).expect(404);
    await api.get('/webhook_endpoints/00000000-0000-4000-8000-000000000000/deliveries/failed_count').expect(404);
  });

  it("delivers matching events signed so Stripe's verifier accepts them", async () => {
    const all = await createEndpoint();
    const accounts = await createEndpoint({ enabled_events: ['account.*'] });
    const event = await record('transaction.created', 'tx-1', { id: 'tx-1', object: 'transaction' });
    const [received] = await receiver.waitFor(1);
    const verified = stripe.webhooks.constructEvent(received.body, String(received.headers['bursar-signature']), all.signing_secret);
    expect(verified).toMatchObject({ id: event.id, object: 'event', type: 'transaction.created', data: { id: 'tx-1', object: 'transaction' } });
    expect(JSON.parse(received.body)).toEqual((await api.get(`/events/${event.id}`).expect(200)).body.data);
    expect(received.headers['bursar-event-id']).toBe(event.id);

    const delivery = await deliveryWhen((await onlyDelivery(all.id)).id, (d) => d.status === 'succeeded');
    expect(delivery).toMatchObject({
      object: 'webhook_delivery', webhook_endpoint_id: all.id, event_id: event.id, enqueue_kind: 'event', attempt: 1,
      request_method: 'POST', request_url: receiver.url, request_body: received.body, response_status: 200,
      next_attempt_at: null, error_message: null, redelivers_delivery_id: null,
    });
    expect(delivery.request_headers['Bursar-Signature']).toBe(received.headers['bursar-signature']);
    expect(delivery.request_headers['Bursar-Delivery-Id']).toBe(delivery.id);
    expect((await api.get(`/webhook_endpoints/${all.id}`).expect(200)).body.data.last_delivered_at).not.toBeNull();
    expect((await api.get(`/webhook_endpoints/${accounts.id}/deliveries`).expect(200)).body.data).toEqual([]);
  });

  it('delivers the events of real API writes (account.created)', async () => {
    const endpoint = await createEndpoint({ enabled_events: ['account.created'] });
    const account = (await api.post('/accounts', { id: 'cash:hooks', name: 'Cash', type: 'asset', currency: 'USD' }).expect(201)).body.data;
    const [received] = await receiver.waitFor(1);
    const event = stripe.webhooks.constructEvent(received.body, String(received.headers['bursar-signature']), endpoint.signing_secret);
    expect(event).toMatchObject({ type: 'account.created', data: { id: account.id, object: 'account' } });
  });

  it('retries a failing receiver: four failures then one success, five attempts recorded', async () => {
    const endpoint = await createEndpoint();
    receiver.respondWith((_, n) => (n <= 4 ? 500 : 200));
    await record('account.created', 'cash');
    const delivery = await deliveryWhen((await onlyDelivery(endpoint.id)).id, (d) => d.status === 'succeeded');
    expect(delivery.attempt).toBe(5);
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [1, 'failed', 500], [2, 'failed', 500], [3, 'failed', 500], [4, 'failed', 500], [5, 'succeeded', 200],
    ]);
    expect(receiver.received).toHaveLength(5);
    expect(new Set(receiver.received.map((r) => r.headers['bursar-event-id'])).size).toBe(1);
  });

  it('marks a delivery failed after five attempts, counts it, and redelivers it', async () => {
    const endpoint = await createEndpoint();
    receiver.respondWith(() => 503);
    const event = await record('account.created', 'doomed');
    const dead = await deliveryWhen((await onlyDelivery(endpoint.id)).id, (d) => d.status === 'failed');
    expect(dead).toMatchObject({ attempt: 5, response_status: 503, error_message: 'receiver answered 503', next_attempt_at: null });
    expect(await attemptsOf(dead.id)).toHaveLength(5);

    const count = (since?: string) =>
      api.get(`/webhook_endpoints/${endpoint.id}/deliveries/failed_count${since ? `?since=${since}` : ''}`).expect(200);
    expect((await count()).body.data).toEqual({ object: 'delivery_count', count: 1, since: null });
    expect((await count('24h')).body.data).toMatchObject({ count: 1, since: expect.any(String) });
    expect((await count('2999-01-01T00:00:00Z')).body.data.count).toBe(0);
    expect((await count('sometime')).body.data).toEqual({ object: 'delivery_count', count: 1, since: null });
    const failedList = await api.get(`/webhook_endpoints/${endpoint.id}/deliveries?status=failed`).expect(200);
    expect(failedList.body.data.map((d: { id: string }) => d.id)).toEqual([dead.id]);
    await api.get(`/webhook_endpoints/${endpoint.id}/deliveries?status=dead`).expect(422);

    receiver.respondWith(() => 200);
    const redeliver = () => api.post(`/webhook_deliveries/${dead.id}/redeliver`).set('Idempotency-Key', `redeliver-${dead.id}`);
    const redelivery = (await redeliver().expect(201)).body.data;
    const replay = await redeliver().expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(redelivery.id);
    expect(redelivery).toMatchObject({ enqueue_kind: 'redelivery', redelivers_delivery_id: dead.id, event_id: event.id, status: 'pending', attempt: 0 });
    const done = await deliveryWhen(redelivery.id, (d) => d.status === 'succeeded');
    expect(done.request_body).toBe(dead.request_body);
    expect(receiver.received.at(-1)?.headers['bursar-event-id']).toBe(event.id);
    expect((await api.get(`/webhook_deliveries/${dead.id}`).expect(200)).body.data.status).toBe('failed');
  });

  it('signs with the old and the new secret for the overlap after a rotation', async () => {
    const endpoint = await createEndpoint();
    const rotated = (await api.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`).expect(200)).body.data;
    expect(rotated).toMatchObject({ object: 'webhook_endpoint', id: endpoint.id, mode: 'test', signing_secret: expect.stringMatching(/^whsec_test_/) });
    expect(rotated.signing_secret).not.toBe(endpoint.signing_secret);
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await api.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`).expect(409)).body.error.code).toBe('rotation_in_progress');
    const [logged] = (await api.get('/events?type=webhook_endpoint.secret_rotated').expect(200)).body.data;
    expect(logged).toMatchObject({ resource_id: endpoint.id, data: { object: 'webhook_endpoint', id: endpoint.id } });
    expect(JSON.stringify(logged)).not.toContain(rotated.signing_secret);

    await record('account.created', 'rotated');
    // The rotation's own event is delivered too; take the account event.
    const received = (await receiver.waitFor(2)).find((r) => JSON.parse(r.body).type === 'account.created');
    if (!received) throw new Error('account.created not delivered');
    const header = String(received.headers['bursar-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.signing_secret, rotated.signing_secret]) {
      expect(stripe.webhooks.constructEvent(received.body, header, secret).type).toBe('account.created');
    }
  });

  it('lets exactly one of several parallel rotations through', async () => {
    const endpoint = await createEndpoint();
    const results = await Promise.all(Array.from({ length: 6 }, () => api.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'rotation_in_progress')).toBe(true);
  });

  it('test-sends a synthetic event, refused while the endpoint is disabled', async () => {
    const endpoint = await createEndpoint();
    const sent = (await api.post(`/webhook_endpoints/${endpoint.id}/test_send`, {}).expect(201)).body.data;
    expect(sent).toMatchObject({ object: 'webhook_delivery', enqueue_kind: 'test_send', event_type: 'webhook.test', status: 'pending' });
    const [received] = await receiver.waitFor(1);
    expect(JSON.parse(received.body)).toMatchObject({ id: sent.event_id, type: 'webhook.test', data: { ping: true, test: true }, livemode: false });
    await deliveryWhen(sent.id, (d) => d.status === 'succeeded');
    expect((await api.get(`/events?type=webhook.test`).expect(200)).body.data).toEqual([]);

    const custom = (await api.post(`/webhook_endpoints/${endpoint.id}/test_send`, { event_type: 'account.created', payload: { hello: 1 } }).expect(201)).body.data;
    expect(custom.event_type).toBe('account.created');
    await deliveryWhen(custom.id, (d) => d.status === 'succeeded');

    const patched = (await api.patch(`/webhook_endpoints/${endpoint.id}`, { active: false, description: 'paused' }).expect(200)).body.data;
    expect(patched).toMatchObject({ active: false, description: 'paused', url: receiver.url });
    expect((await api.post(`/webhook_endpoints/${endpoint.id}/test_send`, {}).expect(409)).body.error.code).toBe('webhook_endpoint_disabled');
    expect((await api.post(`/webhook_deliveries/${sent.id}/redeliver`).expect(409)).body.error.code).toBe('webhook_endpoint_disabled');
    await record('account.created', 'while-paused');
    await new Promise((r) => setTimeout(r, 200));
    expect((await api.get(`/webhook_endpoints/${endpoint.id}/deliveries`).expect(200)).body.data).toHaveLength(2);
  });

  it('updates and deletes endpoints', async () => {
    const endpoint = await createEndpoint();
    const other = await startWebhookReceiver();
    const updated = (await api.patch(`/webhook_endpoints/${endpoint.id}`, { url: other.url, enabled_events: ['period.*'] }).expect(200)).body.data;
    expect(updated).toMatchObject({ url: other.url, enabled_events: ['period.*'], active: true });
    await api.patch(`/webhook_endpoints/${endpoint.id}`, { url: 'not a url' }).expect(422);
    await api.delete(`/webhook_endpoints/${endpoint.id}`).expect(204);
    await api.get(`/webhook_endpoints/${endpoint.id}`).expect(404);
    await api.delete(`/webhook_endpoints/${endpoint.id}`).expect(404);
    await other.close();
  });

  it('relays each event once with several service replicas on one database', async () => {
    const replica: INestApplication = await createLedgerApp(t.settings, createLogger('ledger-replica', 'silent'));
    await replica.init();
    try {
      await createEndpoint();
      const events = await Promise.all(Array.from({ length: 40 }, (_, i) => record('account.created', `acct-${i}`)));
      const received = await receiver.waitFor(40);
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.received).toHaveLength(40);
      expect(new Set(received.map((r) => r.headers['bursar-event-id']))).toEqual(new Set(events.map((e) => e.id)));
    } finally {
      await replica.close();
    }
  });

  it('refuses private and loopback URLs unless WEBHOOK_ALLOW_PRIVATE_URLS is true', async () => {
    const strict = await startLedgerTestApp('webhooks_strict');
    try {
      const strictClient = await LedgerFixtures.of(strict).client();
      const strictToken = await accessToken(strict, strictClient);
      for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.0.0.7/x', 'http://169.254.169.254/latest', 'http://[::1]/x',
        // NAT64, 6to4 and documentation addresses, which the hand-written range list let through.
        'http://[64:ff9b::a9fe:a9fe]/x', 'http://[2002:a9fe:a9fe::1]/x', 'http://192.0.2.1/x']) {
        const res = await request(strict.app.getHttpServer()).post('/ledger/v1/webhook_endpoints')
          .set('Authorization', `Bearer ${strictToken}`).send({ url }).expect(422);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url', details: { reason: 'private_address' } });
      }
    } finally {
      await strict.close();
    }
  });
});
