import request from 'supertest';
import { startPrivateRedis } from '@bursar/testing';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

describe('ledger readiness follows Redis', () => {
  it('turns /readyz to 503 while Redis is down and back to 200 when it returns', async () => {
    let redis = await startPrivateRedis();
    const port = new URL(redis.url).port;
    const t: LedgerTestApp = await startLedgerTestApp('readiness', { REDIS_URL: redis.url });
    try {
      const server = t.app.getHttpServer();
      await request(server).get('/readyz').expect(200);

      await redis.stop();
      const down = await request(server).get('/readyz').expect(503);
      expect(down.body.details.redis.status).toBe('down');
      expect(down.body.details.postgres.status).toBe('up');
      // Liveness does not depend on Redis.
      await request(server).get('/healthz').expect(200);

      redis = await startPrivateRedis(Number(port));
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await request(server).get('/readyz')).status;
      }
      expect(status).toBe(200);
    } finally {
      await t.close();
      await redis.stop();
    }
  });
});
