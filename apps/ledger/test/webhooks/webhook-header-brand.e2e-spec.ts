import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  pollUntil, referenceWebhookVerdict, startWebhookReceiver, startWorkerProcess, testRedisUrl, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

/** The deployment runs with WEBHOOK_BRAND=Kordio, as a team switching from the reference sets it. */
describe('Ledger webhook header brand (WEBHOOK_BRAND and an endpoint header_brand)', () => {
  const webhookEnv = { ...webhookTestEnv('ledger-brand'), WEBHOOK_BRAND: 'Kordio' };
  let t: LedgerTestApp;
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let token: string;
  let origin: string;

  const http = () => request(t.app.getHttpServer());
  const post = (path: string, body: object) =>
    http().post(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', `k-${Math.random()}`).send(body);
  const patch = (path: string, body: object) => http().patch(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).send(body);
  const get = (path: string) => http().get(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    t = await startLedgerTestApp('webhook-brand', webhookEnv);
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    worker = await startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv });
    token = await accessToken(t, await LedgerFixtures.of(t).client());
    receiver = await startWebhookReceiver();
  }, 30_000);
  afterAll(async () => {
    await receiver.close();
    await worker.stop();
    await t.close();
  });

  it("signs with the deployment brand, or with an endpoint's own header_brand, and the reference receiver accepts each", async () => {
    const deploymentBrand = (await post('/webhook_endpoints', { url: receiver.url, enabled_events: ['account.created'] }).expect(201)).body.data;
    const ownBrand = (
      await post('/webhook_endpoints', { url: receiver.url, enabled_events: ['account.created'], header_brand: 'Bursar' }).expect(201)
    ).body.data;
    expect(deploymentBrand.header_brand).toBeNull();
    expect(ownBrand.header_brand).toBe('Bursar');
    expect((await get(`/webhook_endpoints/${ownBrand.id}`).expect(200)).body.data.header_brand).toBe('Bursar');

    await post('/accounts', { id: 'brand:cash', name: 'Cash', type: 'asset', currency: 'USD' }).expect(201);
    const received = await receiver.waitFor(2);
    // Each endpoint has its own secret, so a verdict of ok also tells which endpoint a delivery was for.
    const withHeader = (name: string) => {
      const hit = received.find((r) => r.headers[name] !== undefined);
      if (!hit) throw new Error(`no delivery carried ${name}`);
      return hit;
    };
    const kordio = withHeader('kordio-signature');
    expect(referenceWebhookVerdict(kordio.headers, 'Kordio-Signature', kordio.body, deploymentBrand.signing_secret)).toBe('ok');
    expect(kordio.headers['kordio-event-id']).toBe(JSON.parse(kordio.body).id);
    expect(kordio.headers['kordio-delivery-id']).toEqual(expect.any(String));
    expect(kordio.headers['bursar-signature']).toBeUndefined();
    expect(referenceWebhookVerdict(kordio.headers, 'Bursar-Signature', kordio.body, deploymentBrand.signing_secret)).toBe('missing_header');

    const bursar = withHeader('bursar-signature');
    expect(referenceWebhookVerdict(bursar.headers, 'Bursar-Signature', bursar.body, ownBrand.signing_secret)).toBe('ok');
    expect(bursar.headers['bursar-event-id']).toBe(JSON.parse(bursar.body).id);
    expect(bursar.headers['kordio-signature']).toBeUndefined();

    // The delivery log records the headers as sent, once the worker's report of the attempt is in.
    const [delivery] = await pollUntil(
      async (): Promise<{ status: string; request_headers: Record<string, string> }[]> =>
        (await get(`/webhook_endpoints/${ownBrand.id}/deliveries`).expect(200)).body.data,
      (l) => l[0]?.status === 'succeeded',
    );
    expect(Object.keys(delivery.request_headers)).toEqual(expect.arrayContaining(['Bursar-Signature', 'Bursar-Event-Id', 'Bursar-Delivery-Id']));
  });

  it('changes, resets and validates header_brand', async () => {
    const endpoint = (await post('/webhook_endpoints', { url: receiver.url, header_brand: 'Acme' }).expect(201)).body.data;
    expect((await patch(`/webhook_endpoints/${endpoint.id}`, { header_brand: 'Other' }).expect(200)).body.data.header_brand).toBe('Other');
    expect((await patch(`/webhook_endpoints/${endpoint.id}`, { description: 'kept' }).expect(200)).body.data.header_brand).toBe('Other');
    expect((await patch(`/webhook_endpoints/${endpoint.id}`, { header_brand: null }).expect(200)).body.data.header_brand).toBeNull();
    for (const bad of ['Not-A-Word', '9lives', '', 'x'.repeat(33), 7]) {
      const res = await post('/webhook_endpoints', { url: receiver.url, header_brand: bad }).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'header_brand' });
      await patch(`/webhook_endpoints/${endpoint.id}`, { header_brand: bad }).expect(422);
    }
  });

  it('takes inbound pushes signed under <WEBHOOK_BRAND>-Inbound-Signature', async () => {
    const { id } = (await post('/sources', { name: 'brand-bank' }).expect(201)).body.data;
    const { url, secret } = (await post(`/sources/${id}/inbound`, {}).expect(201)).body.data;
    const body = JSON.stringify({ external_id: 'b-1', amount: '100', currency: 'USD', occurred_at: '2026-03-01T09:00:00Z' });
    const ts = Math.floor(Date.now() / 1000);
    const signature = `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
    const send = (header: string) =>
      fetch(url.replace(/^https?:\/\/[^/]+/, origin), { method: 'POST', headers: { 'content-type': 'application/json', [header]: signature }, body });
    const refused = await send('Bursar-Inbound-Signature');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('Kordio-Inbound-Signature');
    const accepted = await send('Kordio-Inbound-Signature');
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as { data: object }).data).toMatchObject({ object: 'inbound_result', created: 1 });
  });
});
