import request from 'supertest';
import { ControlTestApp, startControlTestApp } from '../control-test-app';

const CONSOLE = 'http://localhost:3003';

/** The console calls control from its own origin; no other origin is let in, and none when unset. */
describe('CORS', () => {
  let withConsole: ControlTestApp;
  let unset: ControlTestApp;
  beforeAll(async () => {
    [withConsole, unset] = await Promise.all([startControlTestApp('cors', { CORS_ALLOWED_ORIGINS: CONSOLE }), startControlTestApp('cors_unset')]);
  });
  afterAll(async () => {
    await Promise.all([withConsole?.close(), unset?.close()]);
  });

  const preflight = (t: ControlTestApp, origin: string) =>
    request(t.app.getHttpServer())
      .options('/control/v1/workspaces')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');

  it("allows the console's origin to send a bearer token", async () => {
    const res = await preflight(withConsole, CONSOLE);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
    const get = await request(withConsole.app.getHttpServer()).get('/control/v1/workspaces').set('Origin', CONSOLE);
    expect(get.status).toBe(401);
    expect(get.headers['access-control-allow-origin']).toBe(CONSOLE);
  });

  it('allows no other origin, and none at all while unset', async () => {
    expect((await preflight(withConsole, 'http://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    const res = await preflight(unset, CONSOLE);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(unset.app.getHttpServer()).get('/control/v1/workspaces').set('Origin', CONSOLE);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a malformed setting at boot', async () => {
    await expect(startControlTestApp('cors_bad', { CORS_ALLOWED_ORIGINS: 'localhost:3003' })).rejects.toThrow(/CORS_ALLOWED_ORIGINS/);
  });
});
