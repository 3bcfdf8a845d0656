import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createDevIdentityProvider } from '../../src/dev-identity/dev-identity-provider';
import { tokenCommand } from '../../src/dev-identity/dev-identity-token';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer } from '../control-fixtures';

const SECRET = 'dev-identity-secret-for-tests';
const AUDIENCE = 'urn:bursar:control';

/** The development provider `pnpm start` runs, driven the way its printed instructions say. */
describe('development identity provider', () => {
  let server: Server;
  let issuer: string;
  let t: ControlTestApp;

  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('request', (await createDevIdentityProvider({ issuer, secret: SECRET, audience: AUDIENCE })).callback());
    t = await startControlTestApp('dev_identity', { IDENTITY_ISSUER: issuer, IDENTITY_AUDIENCE: AUDIENCE });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const token = (person: string, secret = SECRET) =>
    fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${person}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'control' }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as { access_token?: string } }));

  it('issues any named person a token the control service trusts, carrying their email', async () => {
    const res = await token('dev@example.com');
    expect(res.status).toBe(200);
    const access = String(res.body.access_token);
    const http = request(t.app.getHttpServer());
    const ws = await http.post('/control/v1/workspaces').set(bearer(access)).send({ name: 'Dev' }).expect(201);
    expect(ws.body.data.role).toBe('owner');
    const members = await http.get(`/control/v1/workspaces/${ws.body.data.slug}/memberships`).set(bearer(access)).expect(200);
    expect(members.body.data[0]).toMatchObject({ user_sub: 'dev@example.com', email: 'dev@example.com' });
    const handle = String((await token('robin')).body.access_token);
    expect((await http.get('/control/v1/workspaces').set(bearer(handle)).expect(200)).body.data).toEqual([]);
  });

  it('refuses a wrong secret and an unusable name', async () => {
    expect((await token('dev@example.com', 'wrong-secret-wrong-secret')).status).toBe(401);
    expect((await token('no spaces')).status).toBe(401);
  });

  it('prints a working command', () => {
    expect(tokenCommand(issuer, 'you@example.com', SECRET)).toContain(`-u 'you@example.com:${SECRET}'`);
  });
});
