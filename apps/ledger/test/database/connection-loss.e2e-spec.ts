import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { pollUntil, startWebhookReceiver, terminateSessions, terminateSessionsUntil, WebhookReceiver, webhookTestEnv } from '@bursar/testing';
import { BooksApi } from '../books-api';
import { booksProblems } from '@bursar/testing';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

/**
 * What a Postgres restart or failover does to the ledger's connections, done from the test:
 * `pg_terminate_backend` on every session the app holds (pool, organization listener, relay),
 * while it writes, while it idles and while the webhook relay and sweep run.
 */
describe('Ledger when Postgres ends its connections', () => {
  // The relay runs every 10 ms and the sweep every 100 ms, so both hold connections most of the time.
  const env = { ...webhookTestEnv('connection-loss'), WEBHOOK_REPUBLISH_AFTER_MS: '100', LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' };
  let t: LedgerTestApp;
  let api: BooksApi;
  let db: DataSource;
  let admin: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startLedgerTestApp('connection_loss', env);
    api = await BooksApi.start(t);
    db = t.app.get(DataSource);
    admin = new Client({ connectionString: t.settings.LEDGER_DATABASE_URL, application_name: 'connection-loss-test' });
    await admin.connect();
    receiver = await startWebhookReceiver();
    await api.post('/webhook_endpoints', { url: receiver.url }).expect(201);
    await api.account('bank', 'asset');
    await api.account('merchant', 'liability');
  }, 30_000);
  afterAll(async () => {
    await admin.end();
    await receiver.close();
    await t.close();
  });

  const terminateApp = () => terminateSessions(admin, 'bursar-ledger%');

  const ready = () => pollUntil(async () => (await request(t.app.getHttpServer()).get('/readyz')).status, (s) => s === 200, 10_000, 50);

  /** Statuses other than 201/503, and 503s without the retryable code: both must stay empty. */
  function wrongAnswers(answers: request.Response[]): string[] {
    return answers
      .filter((r) => r.status !== 201 && !(r.status === 503 && r.body.error?.code === 'unavailable' && r.headers['retry-after'] === '1'))
      .map((r) => `${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Sends each key again until it is answered 2xx; every key must end as exactly one transaction. */
  async function settle(keys: string[]): Promise<void> {
    for (const key of keys) {
      await pollUntil(async () => (await api.transfer('merchant', 'bank', '1', 'USD', {}, key)).status, (s) => s === 200 || s === 201, 10_000, 50);
    }
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM transactions WHERE ledger_id = $1 AND idempotency_key = ANY ($2)`, [
      api.client.ledgerId,
      keys,
    ]);
    expect(count).toBe(keys.length);
    expect(await booksProblems(db, api.client.ledgerId)).toEqual([]);
  }

  it('answers a write whose connection is ended mid-statement 503 unavailable, and the retry writes it once', async () => {
    // The test's own session holds a lock every transaction insert waits for, so the writes are
    // certainly inside their statements when their connections end.
    await admin.query('BEGIN; LOCK TABLE transactions IN SHARE MODE');
    const keys = Array.from({ length: 10 }, () => randomUUID());
    const writes = Promise.all(keys.map((key) => api.transfer('merchant', 'bank', '1', 'USD', {}, key)));
    await pollUntil(
      async () => (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'bursar-ledger'`)).rows[0].n,
      (n) => n > 0,
    );
    expect(await terminateApp()).toBeGreaterThan(0);
    await admin.query('ROLLBACK');
    const answers = await writes;
    expect(wrongAnswers(answers)).toEqual([]);
    expect(answers.filter((r) => r.status === 503).length).toBeGreaterThan(0);
    await settle(keys);
  });

  it('never answers 500 while its connections are ended again and again under 8 parallel writers', async () => {
    const keys: string[] = [];
    const answers: request.Response[] = [];
    const until = Date.now() + 3_000;
    const writer = async () => {
      while (Date.now() < until) {
        const key = randomUUID();
        keys.push(key);
        answers.push(await api.transfer('merchant', 'bank', '1', 'USD', {}, key));
      }
    };
    const [ended] = await Promise.all([terminateSessionsUntil(admin, 'bursar-ledger%', until), ...Array.from({ length: 8 }, writer)]);
    expect(ended).toBeGreaterThan(0);
    expect(wrongAnswers(answers)).toEqual([]);
    expect(answers.filter((r) => r.status === 201).length).toBeGreaterThan(0);
    await ready();
    await settle(keys);
  }, 60_000);

  it('stays up and ready again when every connection is ended while it idles and while the relay runs', async () => {
    await pollUntil(async () => (await db.query(`SELECT count(*)::int AS n FROM events WHERE relayed_at IS NULL`))[0].n, (n) => n === 0);
    expect(await terminateApp()).toBeGreaterThan(0); // pool, organization listener, relay: all idle
    await ready();
    await api.transfer('merchant', 'bank', '1').expect(201);

    // A burst of events keeps the relay and the sweep inside their transactions while every session ends.
    const burst = await Promise.all(Array.from({ length: 40 }, () => api.transfer('merchant', 'bank', '1')));
    expect(wrongAnswers(burst)).toEqual([]);
    for (let i = 0; i < 10; i++) {
      await terminateApp();
      await new Promise((r) => setTimeout(r, 20));
    }
    await ready();
    await api.transfer('merchant', 'bank', '1').expect(201);
    // The relay carried on: every event committed so far is relayed.
    await pollUntil(async () => (await db.query(`SELECT count(*)::int AS n FROM events WHERE relayed_at IS NULL`))[0].n, (n) => n === 0);
  }, 60_000);
});
