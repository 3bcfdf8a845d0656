import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { startControlTestApp } from '../control-test-app';

describe('control platform endpoints', () => {

  const t = suiteStack(() => startControlTestApp('platform'));

  it('answers /healthz and /readyz', async () => {
    const server = t.app.getHttpServer();
    await request(server).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(server).get('/readyz').expect(200);
    expect(ready.body.details).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });

  it('serves metrics with a request-duration histogram by route', async () => {
    const server = t.app.getHttpServer();
    await request(server).get('/readyz');
    const res = await request(server).get('/metrics').expect(200);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/readyz"[^}]*\} [1-9]/);
  });

  it('serves its OpenAPI 3.1 document', async () => {
    const res = await request(t.app.getHttpServer()).get('/control/v1/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.title).toBe('Bursar Control API');
  });

  it('renders an unknown route in the control envelope, with no request id or livemode in the body', async () => {
    const res = await request(t.app.getHttpServer()).post('/control/v1/nope').expect(404);
    expect(res.body).toEqual({ error: { message: expect.any(String), code: null, hint: expect.any(String) } });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers malformed JSON with 400 and a null code', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/control/v1/nope')
      .set('Content-Type', 'application/json')
      .send('{"x":')
      .expect(400);
    expect(res.body).toEqual({ error: { message: expect.any(String), code: null, hint: expect.any(String) } });
  });
});
