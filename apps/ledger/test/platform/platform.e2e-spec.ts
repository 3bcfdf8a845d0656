import request from 'supertest';
import { ledgerAppStack } from '../ledger-test-app';

describe('ledger platform endpoints', () => {
  const t = ledgerAppStack('platform');

  it('answers /healthz', async () => {
    const res = await request(t.app.getHttpServer()).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports Postgres and Redis up on /readyz', async () => {
    const res = await request(t.app.getHttpServer()).get('/readyz').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.details).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });

  it('serves Prometheus metrics with a request-duration histogram labelled by route', async () => {
    const server = t.app.getHttpServer();
    await request(server).get('/healthz').expect(200);
    const res = await request(server).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/healthz"[^}]*\}/);
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('serves its OpenAPI 3.1 document', async () => {
    const res = await request(t.app.getHttpServer()).get('/ledger/v1/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.title).toBe('Bursar Ledger API');
  });

  it('renders an unknown route in the ledger error envelope', async () => {
    const res = await request(t.app.getHttpServer()).get('/ledger/v1/nope').expect(404);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^req_[0-9a-f]{24}$/);
    expect(res.body).toEqual({
      error: {
        code: 'not_found',
        message: expect.any(String),
        hint: expect.stringMatching(/OpenAPI/),
        docs_url: 'https://docs.bursar.dev/ledger/errors#not_found',
        request_id: requestId,
      },
      livemode: false,
      request_id: requestId,
    });
  });

  it('honours and echoes a caller X-Request-Id, and replaces an unusable one', async () => {
    const server = t.app.getHttpServer();
    const kept = await request(server).get('/healthz').set('X-Request-Id', 'trace-123.abc').expect(200);
    expect(kept.headers['x-request-id']).toBe('trace-123.abc');
    const replaced = await request(server).get('/healthz').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers malformed JSON with 422 invalid_request, never a 500', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/ledger/v1/anything')
      .set('Content-Type', 'application/json')
      .send('{"broken":')
      .expect(422);
    expect(res.body.error.code).toBe('invalid_request');
  });
});
