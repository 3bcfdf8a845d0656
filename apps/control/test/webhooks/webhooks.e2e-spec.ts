import Stripe from 'stripe';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  pollUntil, referenceWebhookVerdict, startWebhookReceiver, startWorkerProcess, testRedisUrl, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { WebhookEventsService } from '../../src/webhooks/webhook-events.service';
import { bearer, createWorkspace, seatMember } from '../control-fixtures';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

const stripe = new Stripe('sk_test_unused');

describe('control webhooks', () => {
  // Control's polynomial schedule spans 4,676 bases: 1 ms keeps eight attempts near five seconds.
  const webhookEnv = webhookTestEnv('control', 1);
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let owner: string;
  let member: string;
  let workspaceId: string;

  const http = () => request(t.app.getHttpServer());
  const path = (rest = '') => `/control/v1/workspaces/hooks/webhook_endpoints${rest}`;
  const emit = (type: string, data: object) =>
    t.app.get(DataSource).transaction((m) => t.app.get(WebhookEventsService).emit(m, workspaceId, type, data));
  const create = async (body: object = {}) =>
    (await http().post(path()).set(bearer(owner)).send({ url: receiver.url, ...body }).expect(201)).body.data;
  const attempts = (eventId: string): Promise<{ attempt: number; outcome: string }[]> =>
    t.app.get(DataSource).query(
      `SELECT a.attempt, a.outcome FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.event_id = $1 ORDER BY a.started_at`,
      [eventId],
    );

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['owner', 'member']);
    t = await startControlTestApp('webhooks', { ...idp.env, ...webhookEnv });
    worker = await startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv });
    [owner, member] = await Promise.all([idp.token('owner'), idp.token('member')]);
    workspaceId = (await createWorkspace(t.app, owner, { name: 'Hooks', slug: 'hooks' })).id;
    await seatMember(t.app, workspaceId, 'member', 'member');
  }, 30_000);
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await idp.close();
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    for (const e of (await http().get(path()).set(bearer(owner)).expect(200)).body.data) {
      await http().delete(path(`/${e.id}`)).set(bearer(owner)).expect(204);
    }
    await receiver.close();
  });

  it('registers an endpoint with a one-time secret and validates the event set', async () => {
    const created = await create({ enabled_events: ['budget.low', 'approval.resolved'] });
    expect(created).toEqual({
      id: expect.any(String),
      url: receiver.url,
      description: null,
      status: 'active',
      enabled_events: ['budget.low', 'approval.resolved'],
      header_brand: null,
      last_delivered_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{40,}$/),
    });
    const list = await http().get(path()).set(bearer(member)).expect(200);
    expect(list.body).toEqual({ data: [expect.not.objectContaining({ secret: expect.anything() })], has_more: false, next_cursor: null });
    expect((await http().get(path(`/${created.id}`)).set(bearer(member)).expect(200)).body.data).not.toHaveProperty('secret');

    await http().post(path()).set(bearer(owner)).send({ url: receiver.url, enabled_events: ['budget.exploded'] }).expect(422);
    await http().post(path()).set(bearer(owner)).send({ url: 'gopher://x' }).expect(422);
    await http().post(path()).set(bearer(owner)).send({}).expect(400);
    await http().post(path()).set(bearer(member)).send({ url: receiver.url }).expect(403);
    await http().delete(path(`/${created.id}`)).set(bearer(member)).expect(403);
  });

  it("delivers subscribed events as {id, type, created_at, data}, verifiable with Stripe's library", async () => {
    const all = await create();
    const lowOnly = await create({ enabled_events: ['budget.low'] });
    const approval = await emit('approval.resolved', { id: 'intent-1', resolution: 'approved' });
    const low = await emit('budget.low', { id: 'budget-1' });
    const received = await receiver.waitFor(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received).toHaveLength(3);
    const bySecret = (secret: string) =>
      received.flatMap((r) => {
        try {
          return [stripe.webhooks.constructEvent(r.body, String(r.headers['bursar-signature']), secret)];
        } catch {
          return [];
        }
      });
    expect(bySecret(all.secret).map((e) => e.id).sort()).toEqual([approval.id, low.id].sort());
    expect(bySecret(lowOnly.secret).map((e) => e.id)).toEqual([low.id]);
    const approvalBody = received.find((r) => r.headers['bursar-event-id'] === approval.id)?.body ?? '{}';
    expect(JSON.parse(approvalBody)).toEqual({
      id: approval.id, type: 'approval.resolved', created_at: approval.createdAt.toISOString(), data: { id: 'intent-1', resolution: 'approved' },
    });
  });

  it("signs under an endpoint's header_brand so a receiver written for the reference keeps its header names", async () => {
    const kordio = await create({ enabled_events: ['budget.low'], header_brand: 'Kordio' });
    const plain = await create({ enabled_events: ['budget.low'] });
    expect(kordio.header_brand).toBe('Kordio');
    expect((await http().get(path(`/${kordio.id}`)).set(bearer(member)).expect(200)).body.data.header_brand).toBe('Kordio');
    const event = await emit('budget.low', { id: 'budget-brand' });
    const received = await receiver.waitFor(2);
    const branded = received.find((r) => r.headers['kordio-signature'] !== undefined);
    const bursar = received.find((r) => r.headers['bursar-signature'] !== undefined);
    if (!branded || !bursar) throw new Error('expected one delivery under each brand');
    expect(referenceWebhookVerdict(branded.headers, 'Kordio-Signature', branded.body, kordio.secret)).toBe('ok');
    expect(branded.headers).toMatchObject({ 'kordio-event-id': event.id, 'kordio-delivery-id': expect.any(String) });
    expect(branded.headers['bursar-signature']).toBeUndefined();
    expect(referenceWebhookVerdict(bursar.headers, 'Bursar-Signature', bursar.body, plain.secret)).toBe('ok');
    expect(referenceWebhookVerdict(bursar.headers, 'Kordio-Signature', bursar.body, plain.secret)).toBe('missing_header');
    for (const bad of ['Kor-dio', '1x', '', 42]) {
      await http().post(path()).set(bearer(owner)).send({ url: receiver.url, header_brand: bad }).expect(422);
    }
  });

  it('lists endpoints a page at a time, newest first, restarting on an unknown cursor', async () => {
    const [older, newer] = [await create(), await create()];
    const list = async (query: string) => (await http().get(path(query)).set(bearer(member)).expect(200)).body;
    const first = await list('?limit=1');
    expect(first).toEqual({ data: [expect.objectContaining({ id: newer.id })], has_more: true, next_cursor: newer.id });
    const second = await list(`?limit=1&starting_after=${first.next_cursor}`);
    expect(second.data.map((e: { id: string }) => e.id)).toEqual([older.id]);
    expect((await list(`?limit=1&starting_after=${older.id}`)).data).toEqual([]);
    expect((await list('?starting_after=unknown')).data.map((e: { id: string }) => e.id)).toEqual([newer.id, older.id]);
    await http().get(path('?limit=abc')).set(bearer(member)).expect(400);
  });

  it('lists deliveries a page at a time', async () => {
    const endpoint = await create();
    const events = [await emit('budget.low', { id: 'a' }), await emit('budget.low', { id: 'b' })];
    await receiver.waitFor(2);
    const list = (query: string) => http().get(path(`/${endpoint.id}/deliveries${query}`)).set(bearer(member)).expect(200);
    const first = (await list('?limit=1')).body;
    expect(first).toMatchObject({ has_more: true, next_cursor: first.data[0].id });
    expect(first.data[0].event_id).toBe(events[1].id);
    const second = (await list(`?limit=1&starting_after=${first.next_cursor}`)).body;
    expect(second.data.map((d: { event_id: string }) => d.event_id)).toEqual([events[0].id]);
    expect((await list('?starting_after=unknown')).body.data).toHaveLength(2);
    await http().get(path('/00000000-0000-4000-8000-000000000000/deliveries')).set(bearer(member)).expect(404);
  });

  it('rotates: two signatures for the overlap, then deletes', async () => {
    const endpoint = await create();
    const rotated = (await http().post(path(`/${endpoint.id}/rotate`)).set(bearer(owner)).expect(200)).body.data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await emit('budget.low', { id: 'b' });
    const [received] = await receiver.waitFor(1);
    const header = String(received.headers['bursar-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) expect(stripe.webhooks.constructEvent(received.body, header, secret).type).toBe('budget.low');

    await http().delete(path(`/${endpoint.id}`)).set(bearer(owner)).expect(204);
    await http().get(path(`/${endpoint.id}`)).set(bearer(owner)).expect(404);
    await http().post(path(`/${endpoint.id}/rotate`)).set(bearer(owner)).expect(404);
  });

  it('follows the reference schedule: eight attempts, then failed', async () => {
    const endpoint = await create();
    receiver.respondWith(() => 500);
    const event = await emit('payment.failed', { id: 'p' });
    await receiver.waitFor(8, 15_000);
    const recorded = await pollUntil(() => attempts(event.id), (a) => a.length >= 8);
    expect(recorded.map((a) => a.outcome)).toEqual(Array(8).fill('failed'));
    const listed = await pollUntil(
      async () => (await http().get(path(`/${endpoint.id}/deliveries`)).set(bearer(member)).expect(200)).body,
      (body) => body.data[0]?.status === 'failed',
    );
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      object: 'webhook_delivery', event_id: event.id, event_type: 'payment.failed', attempt: 8, response_status: 500,
      error_message: 'receiver answered 500', next_attempt_at: null,
    });
    expect(JSON.parse(listed.data[0].request_body)).toMatchObject({ id: event.id, type: 'payment.failed' });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(8);
  }, 20_000);

  it('refuses private endpoint URLs unless WEBHOOK_ALLOW_PRIVATE_URLS is true', async () => {
    const strict = await startControlTestApp('webhooks_strict', idp.env);
    try {
      await createWorkspace(strict.app, owner, { name: 'Strict', slug: 'strict' });
      for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://192.168.0.10/x']) {
        const res = await request(strict.app.getHttpServer())
          .post('/control/v1/workspaces/strict/webhook_endpoints').set(bearer(owner)).send({ url }).expect(422);
        expect(res.body.error.message).toMatch(/private/);
      }
    } finally {
      await strict.close();
    }
  });
});
