import request from 'supertest';
import { DataSource } from 'typeorm';
import { ControlTestApp, startControlTestApp } from './control-test-app';
import { bearer, createAgent, createWorkspace } from './control-fixtures';
import { startTestIdentityProvider, TestIdentityProvider } from './test-identity-provider';

/** Bodies no route should take: each must get a 4xx envelope, never a 5xx, and write nothing. */
const JUNK: unknown[] = [
  [],
  'text',
  { name: null, email: null, role: null, user_sub: null, token: null, confirm: null },
  { name: { nested: true }, user_sub: ['a'], email: 42, role: 7, budget_id: 'x', amount_ceiling_cents: 1e30 },
  { budget_cents: -1, amount_ceiling_cents: Number.MAX_SAFE_INTEGER + 2, expires_at: '2020-13-45T99:00:00Z' },
  { name: 'x'.repeat(10_000), slug: 'UPPER CASE', counterparty: '', confirm: 'x'.repeat(100) },
];

describe('bad input on the access routes', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let owner: string;
  let key: string;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['owner']);
    t = await startControlTestApp('bad_input', idp.env);
    owner = await idp.token('owner');
    await createWorkspace(t.app, owner, { name: 'Junk', slug: 'junk' });
    key = (await createAgent(t.app, owner, 'junk')).api_key;
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const counts = async () =>
    (
      await t.app.get(DataSource).query(
        `SELECT (SELECT count(*) FROM workspaces) + (SELECT count(*) FROM workspace_memberships) + (SELECT count(*) FROM workspace_invitations)
              + (SELECT count(*) FROM agents) + (SELECT count(*) FROM budgets) + (SELECT count(*) FROM spend_tokens)
              + (SELECT count(*) FROM audit_events) AS n`,
      )
    )[0].n as string;

  it('answers every malformed write with a 4xx envelope and leaves every table as it was', async () => {
    const ws = '/control/v1/workspaces/junk';
    const routes: [string, string, string][] = [
      ['post', '/control/v1/workspaces', owner],
      ['post', `${ws}/agents`, owner],
      ['post', `${ws}/memberships`, owner],
      ['post', `${ws}/invitations`, owner],
      ['delete', ws, owner],
      ['post', '/control/v1/invitations/accept', owner],
      ['post', '/control/v1/agent/budgets', key],
      ['post', '/control/v1/agent/spend_tokens', key],
    ];
    const before = await counts();
    const wrong: string[] = [];
    for (const [method, path, credential] of routes) {
      for (const body of JUNK) {
        const req = method === 'post' ? request(t.app.getHttpServer()).post(path) : request(t.app.getHttpServer()).delete(path);
        const res = await req.set(bearer(credential)).set('content-type', 'application/json').send(JSON.stringify(body));
        const enveloped = typeof res.body.error?.message === 'string';
        if (res.status < 400 || res.status >= 500 || !enveloped) wrong.push(`${method} ${path} ${JSON.stringify(body).slice(0, 60)} -> ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    const broken = await request(t.app.getHttpServer()).post('/control/v1/workspaces').set(bearer(owner)).set('content-type', 'application/json').send('{"name":');
    expect(broken.status).toBe(400);
    expect(await counts()).toBe(before);
  });
});
