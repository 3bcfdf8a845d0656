import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { tokenCommand } from '../../src/dev-identity/dev-identity-token';
import type { ControlTestApp } from '../control-test-app';
import { DEV_IDENTITY_SECRET, startDevIdentityStack } from './dev-identity-stack';
import { bearer } from '../control-fixtures';


/** The development provider `pnpm start` runs, driven the way its printed instructions say. */
describe('development identity provider', () => {
  let issuer: string;
  let t: ControlTestApp;

  const stack = suiteStack(() => startDevIdentityStack('dev_identity'));
  beforeAll(async () => {
    ({ issuer, t } = stack);
  });

  const token = (person: string, secret = DEV_IDENTITY_SECRET) =>
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
    expect(tokenCommand(issuer, 'you@example.com', DEV_IDENTITY_SECRET)).toContain(`-u 'you@example.com:${DEV_IDENTITY_SECRET}'`);
  });
});
