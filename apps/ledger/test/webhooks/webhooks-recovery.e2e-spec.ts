import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  pollUntil, startWebhookReceiver, startWorkerProcess, testRedisUrl, webhookTestEnv, WebhookReceiver, WorkerProcess,
} from '@bursar/testing';
import { EventsService } from '../../src/events/events.service';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { ledgerAppStack } from '../ledger-test-app';

describe('Ledger webhooks when Redis loses its data', () => {
  // Retries 2 s apart, so the test can wipe the queue while a retry waits; lost jobs are
  // published again half a second after they should have shown up.
  const env = { ...webhookTestEnv('ledger-recovery', 2_000), WEBHOOK_REPUBLISH_AFTER_MS: '500' };
  const t = ledgerAppStack('webhooks_recovery', env);
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let redis: Redis;

  beforeAll(async () => {
    worker = await startWorkerProcess({ REDIS_URL: testRedisUrl(), ...env });
    receiver = await startWebhookReceiver();
    redis = new Redis(testRedisUrl());
  }, 30_000);
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
    redis.disconnect();
  });

  /** Everything this file's queues hold, gone, as after a Redis restart without persistence. */
  async function wipeQueues(): Promise<void> {
    const keys = await redis.keys(`${env.WEBHOOK_QUEUE_PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }

  it('publishes a delivery again once its job is lost, keeping the attempt count', async () => {
    const client = await LedgerFixtures.of(t).client();
    const token = await accessToken(t, client);
    const api = (path: string) => request(t.app.getHttpServer()).get(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`);
    const endpoint = (
      await request(t.app.getHttpServer()).post('/ledger/v1/webhook_endpoints').set('Authorization', `Bearer ${token}`)
        .send({ url: receiver.url }).expect(201)
    ).body.data;
    receiver.respondWith((_, n) => (n === 1 ? 500 : 200));

    const scope = { organizationId: client.organizationId, mode: 'test' as const, ledgerId: client.ledgerId };
    const event = await t.app.get(DataSource).transaction((m) => t.app.get(EventsService).record(m, scope, 'account.created', 'cash', {}));
    await receiver.waitFor(1);
    // The first attempt failed and its retry waits in Redis: lose it.
    await new Promise((r) => setTimeout(r, 300));
    await wipeQueues();

    const [second] = (await receiver.waitFor(2, 10_000)).slice(1);
    expect(second.headers['bursar-event-id']).toBe(event.id);
    const delivery = await pollUntil(
      async () => (await api(`/webhook_endpoints/${endpoint.id}/deliveries`).expect(200)).body.data[0],
      (d) => d.status === 'succeeded',
    );
    expect(delivery.attempt).toBe(2);
    const attempts = await t.app.get(DataSource).query(
      'SELECT attempt, outcome FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY started_at',
      [delivery.id],
    );
    expect(attempts).toEqual([{ attempt: 1, outcome: 'failed' }, { attempt: 2, outcome: 'succeeded' }]);
  }, 20_000);
});
