import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import Stripe from 'stripe';
import supertest from 'supertest';
import { SecretBox } from '@bursar/crypto';
import {
  buildDeliveryJob,
  consumeWebhookResults,
  createQueueConnection,
  WEBHOOK_DELIVERY_QUEUE,
  WebhookAttemptResult,
  WebhookPublisher,
} from '@bursar/queue';
import { createLogger, loadConfig } from '@bursar/service-kit';
import {
  pollUntil, startWebhookReceiver, startWorkerProcess, testRedisUrl, testSecretKey, webhookTestEnv, WebhookReceiver,
} from '@bursar/testing';
import { WorkerSettings } from '../src/config/worker.settings';
import { createWorkerApp } from '../src/worker.app';

const logger = createLogger('worker-test', 'silent');
const stripe = new Stripe('sk_test_unused');

describe('webhook worker deliveries', () => {
  const webhookEnv = webhookTestEnv('worker');
  const prefix = webhookEnv.WEBHOOK_QUEUE_PREFIX;
  const key = webhookEnv.WEBHOOK_SECRET_KEY;
  // Every worker of the file shares one lock duration: the stalled-job check is throttled per queue
  // by the interval of whichever worker ran it last.
  const env = { ...webhookEnv, REDIS_URL: testRedisUrl(), WORKER_LOCK_DURATION_MS: '1000' };
  let connection: Redis;
  let publisher: WebhookPublisher;
  let results: Worker<WebhookAttemptResult>;
  const reported: WebhookAttemptResult[] = [];
  let receiver: WebhookReceiver;
  let apps: INestApplication[] = [];

  async function startWorker(extra: Record<string, string> = {}): Promise<INestApplication> {
    const settings = loadConfig(WorkerSettings, { ...env, LOG_LEVEL: 'silent', ...extra });
    const app = await createWorkerApp(settings, logger);
    await app.init();
    apps.push(app);
    return app;
  }

  async function publish(secrets: string[], retryDelaysMs = [5, 5, 5, 5], url = receiver.url) {
    const deliveryId = randomUUID();
    const eventId = randomUUID();
    const body = JSON.stringify({ id: eventId, object: 'event', type: 'account.created', data: { id: 'cash', note: 'é' } });
    await publisher.publish([
      buildDeliveryJob(
        { service: 'ledger', brand: 'Bursar', deliveryId, eventId, url, body, secrets, retryDelaysMs, attemptsMade: 0 },
        SecretBox.fromBase64(key),
      ),
    ]);
    return { deliveryId, eventId, body };
  }

  async function resultsFor(deliveryId: string, count: number): Promise<WebhookAttemptResult[]> {
    const mine = await pollUntil(
      async () => reported.filter((r) => r.deliveryId === deliveryId),
      (found) => found.length >= count,
    );
    return mine.sort((a, b) => a.startedAt - b.startedAt);
  }

  beforeAll(async () => {
    connection = createQueueConnection({ redisUrl: testRedisUrl(), logger, name: 'worker-test' });
    publisher = new WebhookPublisher(connection, prefix);
    results = consumeWebhookResults({
      service: 'ledger', connection, prefix, concurrency: 10,
      record: async (r) => void reported.push(r),
    });
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await Promise.all(apps.map((a) => a.close()));
    apps = [];
    await receiver.close();
  });
  afterAll(async () => {
    await results.close();
    await publisher.close();
    await connection.quit();
  });

  it("posts the exact body with headers Stripe's verifier accepts, one v1 per secret", async () => {
    const app = await startWorker();
    const [current, previous] = ['whsec_test_current', 'whsec_test_previous'];
    const { deliveryId, eventId, body } = await publish([current, previous]);
    const [request] = await receiver.waitFor(1);
    expect(request.body).toBe(body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['bursar-event-id']).toBe(eventId);
    expect(request.headers['bursar-delivery-id']).toBe(deliveryId);
    const signature = String(request.headers['bursar-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of [current, previous]) {
      expect(stripe.webhooks.constructEvent(request.body, signature, secret).id).toBe(eventId);
    }
    expect(() => stripe.webhooks.constructEvent(request.body, signature, 'whsec_other')).toThrow();

    const [result] = await resultsFor(deliveryId, 1);
    expect(result).toMatchObject({ attempt: 1, outcome: 'succeeded', final: true, nextAttemptAt: null, responseStatus: 200, error: null });
    expect(result.requestHeaders['Bursar-Signature']).toBe(signature);

    const metrics = (await supertest(app.getHttpServer()).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/webhook_deliveries_total\{service="ledger",outcome="succeeded"\} 1/);
    expect(metrics).toMatch(/webhook_attempt_duration_seconds_count\{service="ledger"\} 1/);
    expect(metrics).toMatch(/webhook_enqueue_to_receipt_seconds_count\{service="ledger"\} 1/);
    expect(metrics).toMatch(/webhook_queue_depth\{state="waiting"\} 0/);
  });

  it('keeps signing secrets out of Redis in clear', async () => {
    const secret = `whsec_test_${randomBytes(16).toString('hex')}`;
    const { deliveryId } = await publish([secret]);
    const queue = new Queue(WEBHOOK_DELIVERY_QUEUE, { connection, prefix });
    const job = await queue.getJob(deliveryId);
    expect(job?.data.sealedSecrets).toHaveLength(1);
    expect(JSON.stringify(job?.data)).not.toContain(secret);
    const keys = await connection.keys(`${prefix}:*`);
    for (const key of keys.filter((k) => k.endsWith(deliveryId))) {
      expect(JSON.stringify(await connection.hgetall(key))).not.toContain(secret);
    }
    expect(keys.length).toBeGreaterThan(0);
    // No worker runs in this test: the job must not linger for the next one.
    await job?.remove();
    await queue.close();
  });

  it('retries failures on the job schedule and reports every attempt', async () => {
    await startWorker();
    receiver.respondWith((_, n) => (n <= 2 ? 503 : 204));
    const { deliveryId } = await publish(['whsec_test_a']);
    const attempts = await resultsFor(deliveryId, 3);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.final, a.responseStatus])).toEqual([
      [1, 'failed', false, 503], [2, 'failed', false, 503], [3, 'succeeded', true, 204],
    ]);
    expect(attempts[0].error).toBe('receiver answered 503');
    expect(attempts[0].nextAttemptAt).toEqual(expect.any(Number));
  });

  it('gives up after the last attempt, and counts a timeout as a failure', async () => {
    await startWorker({ WEBHOOK_TIMEOUT_MS: '300' });
    receiver.respondWith(() => new Promise((r) => setTimeout(() => r(200), 1_000)));
    const { deliveryId } = await publish(['whsec_test_a'], [5]);
    const attempts = await resultsFor(deliveryId, 2);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.final])).toEqual([[1, 'failed', false], [2, 'failed', true]]);
    expect(attempts[1].error).toBe('timed out after 300 ms');
    expect(attempts[1].responseStatus).toBeNull();
  });

  it('refuses to connect to a private address unless allowed', async () => {
    await startWorker({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    const { deliveryId } = await publish(['whsec_test_a'], [], receiver.url.replace('127.0.0.1', 'localhost'));
    const [result] = await resultsFor(deliveryId, 1);
    expect(result).toMatchObject({ outcome: 'failed', final: true });
    expect(result.error).toMatch(/refusing private address/);
    expect(receiver.received).toHaveLength(0);
  });

  it('reports a job whose secrets it cannot open as failed, without retrying', async () => {
    await startWorker({ WEBHOOK_SECRET_KEY: testSecretKey() });
    const { deliveryId } = await publish(['whsec_test_a']);
    const [result] = await resultsFor(deliveryId, 1);
    expect(result).toMatchObject({ outcome: 'failed', final: true });
    expect(result.error).toMatch(/WEBHOOK_SECRET_KEY/);
    expect(receiver.received).toHaveLength(0);
  });

  it('loses no delivery when a worker process is killed mid-delivery', async () => {
    const doomed = await startWorkerProcess(env);
    // The first request hangs, so the delivery is in flight when the process dies.
    receiver.respondWith((_, n) => (n === 1 ? new Promise(() => undefined) : 200));
    const { deliveryId, eventId } = await publish(['whsec_test_a']);
    await receiver.waitFor(1);
    await doomed.kill();

    await startWorker();
    const requests = await receiver.waitFor(2, 15_000);
    expect(requests.map((r) => r.headers['bursar-event-id'])).toEqual([eventId, eventId]);
    const results = await resultsFor(deliveryId, 1);
    expect(results).toEqual([expect.objectContaining({ outcome: 'succeeded', final: true })]);
  }, 30_000);
});
