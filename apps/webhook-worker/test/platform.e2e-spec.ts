import request from 'supertest';
import type { INestApplication } from '@nestjs/common';
import { createLogger, loadConfig } from '@bursar/service-kit';
import { testRedisUrl } from '@bursar/testing';
import { WorkerSettings } from '../src/config/worker.settings';
import { createWorkerApp } from '../src/worker.app';

describe('webhook worker platform endpoints', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const settings = loadConfig(WorkerSettings, { REDIS_URL: testRedisUrl(), LOG_LEVEL: 'silent' });
    app = await createWorkerApp(settings, createLogger('webhook-worker', 'silent'));
    await app.init();
  });
  afterAll(() => app.close());

  it('answers /healthz, /readyz (Redis only) and /metrics', async () => {
    const server = app.getHttpServer();
    await request(server).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(server).get('/readyz').expect(200);
    expect(Object.keys(ready.body.details)).toEqual(['redis']);
    const metrics = await request(server).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_request_duration_seconds');
  });

  it('answers an unknown route with 404', async () => {
    const res = await request(app.getHttpServer()).get('/nope').expect(404);
    expect(res.body.error.message).toEqual(expect.any(String));
  });
});
