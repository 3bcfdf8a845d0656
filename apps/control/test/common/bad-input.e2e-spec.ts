import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';

/** Bodies no route should take: each must get a 4xx envelope, never a 5xx, and write nothing. */
const JUNK: unknown[] = [
  [],
  'text',
  { name: null, email: null, role: null, user_sub: null, token: null, confirm: null },
  { name: { nested: true }, user_sub: ['a'], email: 42, role: 7, budget_id: 'x', amount_ceiling_cents: 1e30 },
  { budget_cents: -1, amount_ceiling_cents: Number.MAX_SAFE_INTEGER + 2, expires_at: '2020-13-45T99:00:00Z' },
  { name: 'x'.repeat(10_000), slug: 'UPPER CASE', counterparty: '', confirm: 'x'.repeat(100) },
  { budget_cents: 1.5, amount_ceiling_cents: -1, max_budget_cents: 1e30, units: 1e30, parent_budget_id: 'not-a-uuid', status: 'revoked', role: 'root' },
  { budget_cents: '100', amount_ceiling_cents: 1e308, max_budget_cents: -1, units: -1, scopes: ['\u0000'], expires_at: 1e20 },
];

/** Path ids and query strings no read should take; each must be a 4xx envelope or a plain 200 page, never a 5xx. */
const BAD_IDS = ['not-a-uuid', '1', `${'0'.repeat(8)}-0000-0000-0000-00000000000g`, '%00', 'x'.repeat(300)];
const BAD_QUERIES = [
  'limit=abc',
  'limit=-5',
  'limit=1e400',
  'limit=99999999999999999999999',
  'starting_after=not-a-uuid',
  'starting_after=%00',
  'unknown_param=1',
  'agent_id=not-a-uuid',
  'budget_id=%00',
  'subject_id=nope&subject_type=Nope',
  'trace_id=%00',
  'action=%00',
  'limit=1&limit=2',
  'starting_after[x]=1',
  'agent_id[]=a&agent_id[]=b',
  'token[]=inv_a',
];

describe('bad input on the access routes', () => {
  let owner: string;
  let key: string;
  let agentId: string;
  let ownerMembershipId: string;
  let budgetId: string;

  const s = suiteStack(() => startIdentifiedTestApp('bad_input', ['owner']));
  beforeAll(async () => {
    owner = await s.idp.token('owner');
    await createWorkspace(s.t.app, owner, { name: 'Junk', slug: 'junk' });
    ({ api_key: key, id: agentId } = await createAgent(s.t.app, owner, 'junk'));
    const members = await request(s.t.app.getHttpServer()).get('/control/v1/workspaces/junk/memberships').set(bearer(owner)).expect(200);
    ownerMembershipId = members.body.data[0].id;
    const budget = await request(s.t.app.getHttpServer()).post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 1000 }).expect(201);
    budgetId = budget.body.data.id;
  });

  const send = (method: string, path: string, credential: string, body: string) => {
    const server = request(s.t.app.getHttpServer());
    const req = method === 'get' ? server.get(path) : method === 'patch' ? server.patch(path) : method === 'delete' ? server.delete(path) : server.post(path);
    return req.set(bearer(credential)).set('content-type', 'application/json').send(body);
  };
  /** A refusal as the contract renders it: a 4xx with the error envelope. */
  const refused = (res: request.Response) => res.status >= 400 && res.status < 500 && typeof res.body.error?.message === 'string';

  const counts = async () =>
    (
      await s.t.app.get(DataSource).query(
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
      ['post', `${ws}/billing/checkout`, owner],
      ['post', `${ws}/billing/packs`, owner],
      ['patch', `${ws}/agents/${agentId}`, owner],
      ['patch', `${ws}/memberships/${ownerMembershipId}`, owner],
    ];
    const before = await counts();
    const wrong: string[] = [];
    for (const [method, path, credential] of routes) {
      for (const body of JUNK) {
        const res = await send(method, path, credential, JSON.stringify(body));
        if (!refused(res)) wrong.push(`${method} ${path} ${JSON.stringify(body).slice(0, 60)} -> ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    const broken = await request(s.t.app.getHttpServer())
      .post('/control/v1/workspaces').set(bearer(owner)).set('content-type', 'application/json').send('{"name":');
    expect(broken.status).toBe(400);
    // Deeply nested JSON must not overflow a recursive walk anywhere on the way.
    const deep = `{"name":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const deepRes = await send('post', '/control/v1/workspaces', owner, deep);
    expect([deepRes.status, deepRes.body]).toEqual([400, { error: expect.anything() }]);
    expect(await counts()).toBe(before);
  });

  it('refuses bad values (NUL characters, huge, negative, fractional or string cents) in otherwise well-formed bodies', async () => {
    const ws = '/control/v1/workspaces/junk';
    const nul = 'a\u0000b';
    const cases: [string, string, string, object][] = [
      ['post', '/control/v1/workspaces', owner, { name: nul }],
      ['post', '/control/v1/workspaces', owner, { name: 'ok', slug: nul }],
      ['post', `${ws}/agents`, owner, { name: nul }],
      ['post', `${ws}/agents`, owner, { name: 'ok', scopes: [nul] }],
      ['patch', `${ws}/agents/${agentId}`, owner, { name: nul }],
      ['post', `${ws}/memberships`, owner, { user_sub: nul }],
      ['post', `${ws}/memberships`, owner, { user_sub: 'ok-sub', email: 'a\u0000@example.com' }],
      ['post', `${ws}/invitations`, owner, { email: 'a\u0000@example.com' }],
      ['post', '/control/v1/invitations/accept', owner, { token: `inv_${nul}` }],
      ['delete', ws, owner, { confirm: nul }],
      ['post', `${ws}/billing/checkout`, owner, { plan: 'build', email: 'a\u0000@example.com' }],
      ['post', '/control/v1/agent/spend_tokens', key, { budget_id: budgetId, amount_ceiling_cents: 5, counterparty: nul }],
      ['post', `${ws}/billing/packs`, owner, { units: 1e30 }],
    ];
    // Cents past 2^53 would lose precision as JSON numbers; negative and fractional cents do not exist.
    for (const cents of [1e30, Number.MAX_SAFE_INTEGER + 2, -1, 1.5, '100', null]) {
      cases.push(
        ['post', `${ws}/agents`, owner, { name: 'ok', max_budget_cents: cents ?? 'x' }],
        ['patch', `${ws}/agents/${agentId}`, owner, { max_budget_cents: cents ?? 'x' }],
        ['post', '/control/v1/agent/budgets', key, { budget_cents: cents }],
        ['post', '/control/v1/agent/spend_tokens', key, { budget_id: budgetId, amount_ceiling_cents: cents }],
      );
    }
    const before = await counts();
    const wrong: string[] = [];
    for (const [method, path, credential, body] of cases) {
      const res = await send(method, path, credential, JSON.stringify(body));
      if (!refused(res)) wrong.push(`${method} ${path} ${JSON.stringify(body)} -> ${res.status}`);
    }
    expect(wrong).toEqual([]);
    expect(await counts()).toBe(before);
  });

  it('refuses malformed path ids with a 4xx envelope on every id route, writing nothing', async () => {
    const ws = '/control/v1/workspaces/junk';
    const routes: [string, string, string][] = [
      ['get', `${ws}/agents/:id`, owner],
      ['patch', `${ws}/agents/:id`, owner],
      ['patch', `${ws}/memberships/:id`, owner],
      ['delete', `${ws}/memberships/:id`, owner],
      ['delete', `${ws}/invitations/:id`, owner],
      ['get', `${ws}/budgets/:id`, owner],
      ['get', `${ws}/spend_tokens/:id`, owner],
      ['get', `${ws}/audit_events/:id`, owner],
      ['get', '/control/v1/agent/budgets/:id', key],
      ['post', '/control/v1/agent/budgets/:id/close', key],
      ['get', '/control/v1/agent/spend_tokens/:id', key],
      ['get', '/control/v1/workspaces/:id', owner],
      ['get', '/control/v1/workspaces/:id/export', owner],
    ];
    const before = await counts();
    const wrong: string[] = [];
    for (const [method, template, credential] of routes) {
      for (const id of BAD_IDS) {
        const res = await send(method, template.replace(':id', id), credential, JSON.stringify({ name: 'n', role: 'admin' }));
        if (!refused(res)) wrong.push(`${method} ${template} ${id.slice(0, 40)} -> ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await counts()).toBe(before);
  });

  it('answers junk query strings on every list with a 400 envelope or a first page, never a 5xx', async () => {
    const ws = '/control/v1/workspaces/junk';
    const lists = ['agents', 'memberships', 'invitations', 'budgets', 'spend_tokens', 'audit_events', 'billing', 'export'].map((r) => `${ws}/${r}`);
    const wrong: string[] = [];
    for (const path of [...lists, '/control/v1/workspaces', '/control/v1/invitations/lookup']) {
      for (const query of BAD_QUERIES) {
        const res = await request(s.t.app.getHttpServer()).get(`${path}?${query}`).set(bearer(owner));
        const ok = res.status === 200 || refused(res);
        if (!ok) wrong.push(`GET ${path}?${query} -> ${res.status} ${JSON.stringify(res.body).slice(0, 80)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

