import request from 'supertest';
import { startPrivateRedis } from '@bursar/testing';
import { ledgerApi } from '../ledger-api-client';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { ledgerAppStack, startLedgerTestApp } from '../ledger-test-app';

const BUDGETS = { LEDGER_RATE_LIMIT_READS_PER_SECOND: '6', LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '3' };

describe('Rate limits per client', () => {
  const t = ledgerAppStack('rate_limits', BUDGETS);
  let fx: LedgerFixtures;

  beforeAll(async () => {
    fx = LedgerFixtures.of(t);
  });

  async function freshClient(): Promise<{ client: TestClient; api: ReturnType<typeof ledgerApi> }> {
    const client = await fx.client();
    return { client, api: ledgerApi({ t, token: await accessToken(t, client) }) };
  }

  it('puts X-RateLimit-* on every authenticated response, errors included', async () => {
    const { api } = await freshClient();
    const ok = await api.get('/organizations/me').expect(200);
    expect(ok.headers).toMatchObject({ 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': expect.stringMatching(/^\d+$/) });
    const missing = await api.get('/ledgers/00000000-0000-4000-8000-000000000000').expect(404);
    expect(missing.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('refuses the request past the budget with 429 rate_limited and Retry-After; reads and writes count apart', async () => {
    const { client, api } = await freshClient();
    const writes = await Promise.all(Array.from({ length: 5 }, (_, i) => api.patch(`/ledgers/${client.ledgerId}`, { name: `n${i}` })));
    expect(writes.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429]);
    const [refused] = writes.filter((r) => r.status === 429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 3, kind: 'write' } });
    expect(refused.headers).toMatchObject({ 'retry-after': '1', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' });
    // The read budget is untouched, and another client of the same organization has its own.
    await api.get(`/ledgers/${client.ledgerId}`).expect(200);
    const other = ledgerApi({ t, token: await accessToken(t, await fx.client({ organizationId: client.organizationId })) });
    await other.patch(`/ledgers/${client.ledgerId}`, { name: 'other' }).expect(200);
  });

  it('refills over the window', async () => {
    const { client, api } = await freshClient();
    await Promise.all(Array.from({ length: 3 }, () => api.patch(`/ledgers/${client.ledgerId}`, {})));
    await api.patch(`/ledgers/${client.ledgerId}`, {}).expect(429);
    await new Promise((r) => setTimeout(r, 400));
    await api.patch(`/ledgers/${client.ledgerId}`, {}).expect(200);
  });
});

describe('Rate limits when Redis is lost', () => {
  it('fail open: requests pass unthrottled while Redis is down, and the skip is counted', async () => {
    let redis = await startPrivateRedis();
    const port = Number(new URL(redis.url).port);
    const t = await startLedgerTestApp('rate_limits_no_redis', { ...BUDGETS, REDIS_URL: redis.url });
    try {
      const client = await LedgerFixtures.of(t).client();
      const api = ledgerApi({ t, token: await accessToken(t, client) });
      await redis.stop();
      const results = await Promise.all(Array.from({ length: 8 }, () => api.patch(`/ledgers/${client.ledgerId}`, {})));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      const metrics = await request(t.app.getHttpServer()).get('/metrics').expect(200);
      expect(metrics.text).toMatch(/^rate_limiter_unavailable_total [1-9]\d*$/m);
    } finally {
      // Back up and reconnected before closing, so the app's clients shut down cleanly.
      redis = await startPrivateRedis(port);
      for (let i = 0; i < 50 && (await request(t.app.getHttpServer()).get('/readyz')).status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await t.close();
      await redis.stop();
    }
  });
});
