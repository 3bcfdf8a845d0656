import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startWorkspaceStack } from '../control-test-app';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';

describe('agents and their keys', () => {
  const slug = 'fleet';
  const base = `/control/v1/workspaces/${slug}/agents`;

  const s = suiteStack(() => startWorkspaceStack('agents', { name: 'Fleet', slug }, { owner: 'owner', admin: 'admin', member: 'member', outsider: null }));

  const http = () => request(s.t.app.getHttpServer());
  const budgetCall = (key?: string) => {
    const req = http().post('/control/v1/agent/budgets');
    return (key ? req.set(bearer(key)) : req).send({ budget_cents: 100 });
  };

  it('creates an agent whose key is shown once and stored only as a digest', async () => {
    const res = await http()
      .post(base)
      .set(bearer(s.tokens.admin))
      .send({ name: 'shopper', mode: 'live', scopes: ['payment.*'], max_budget_cents: 5000 })
      .expect(201);
    const agent = res.body.data;
    expect(agent).toEqual({
      id: expect.any(String),
      name: 'shopper',
      status: 'active',
      mode: 'live',
      scopes: ['payment.*'],
      api_key_prefix: agent.api_key.slice(0, 12),
      max_budget_cents: 5000,
      last_used_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      api_key: expect.stringMatching(/^krt_live_[A-Za-z0-9_-]{43}$/),
      starter_policy: expect.objectContaining({ agent_id: agent.id, status: 'active', per_transaction_cap_cents: 50000, approval_threshold_cents: 10000 }),
    });
    const [row] = await s.t.app.get(DataSource).query(`SELECT key_digest, key_lookup FROM agents WHERE id = $1`, [agent.id]);
    expect(row.key_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(agent.api_key);

    const shown = await http().get(`${base}/${agent.id}`).set(bearer(s.tokens.member)).expect(200);
    expect(shown.body.data).not.toHaveProperty('api_key');
    const listed = await http().get(base).set(bearer(s.tokens.member)).expect(200);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(agent.id);
    expect(JSON.stringify(listed.body)).not.toContain(agent.api_key);

    const [event] = await s.t.app.get(DataSource).query(`SELECT snapshot FROM audit_events WHERE subject_id = $1`, [agent.id]);
    expect(JSON.stringify(event.snapshot)).not.toContain(agent.api_key);
  });

  it('skips the starter policy on request, and the agent then has no policy at all', async () => {
    const res = await http().post(base).set(bearer(s.tokens.admin)).send({ name: 'bare', skip_starter_policy: true }).expect(201);
    expect(res.body.data.starter_policy).toBeNull();
    const [{ n }] = await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM policies WHERE agent_id = $1`, [res.body.data.id]);
    expect(n).toBe(0);
  });

  it('defaults to a test agent with no scopes and no ceiling', async () => {
    const agent = await createAgent(s.t.app, s.tokens.owner, slug);
    expect(agent).toMatchObject({ mode: 'test', status: 'active', scopes: [], max_budget_cents: null });
    expect(agent.api_key).toMatch(/^krt_test_/);
  });

  it('lets a member read agents but not write them (403 insufficient_role)', async () => {
    const agent = await createAgent(s.t.app, s.tokens.owner, slug);
    for (const req of [http().post(base).send({ name: 'x' }), http().patch(`${base}/${agent.id}`).send({ name: 'y' })]) {
      const res = await req.set(bearer(s.tokens.member)).expect(403);
      expect(res.body).toEqual({ error: { message: expect.any(String), code: 'insufficient_role', hint: expect.any(String) } });
    }
  });

  it('hides the workspace from outsiders with 404', async () => {
    await http().get(base).set(bearer(s.tokens.outsider)).expect(404);
    await http().post(base).set(bearer(s.tokens.outsider)).send({ name: 'x' }).expect(404);
  });

  it.each([
    [{ name: 'x', mode: 'prod' }, 'mode'],
    [{ name: 'x', status: 'revoked' }, 'status'],
    [{ name: 'x', scopes: ['Payment'] }, 'scopes'],
    [{ name: 'x', max_budget_cents: -1 }, 'max_budget_cents'],
    [{ name: 'x', max_budget_cents: 1.5 }, 'max_budget_cents'],
  ])('refuses %j with 422 and writes nothing', async (body, field) => {
    const count = () => s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM agents`);
    const before = await count();
    const res = await http().post(base).set(bearer(s.tokens.owner)).send(body).expect(422);
    expect(res.body.error).toEqual({ message: expect.stringContaining(field), code: null, hint: expect.any(String), param: expect.stringContaining(field), details: { fields: expect.any(Object) } });
    expect(await count()).toEqual(before);
  });

  it('answers 404 for an agent of another workspace', async () => {
    await createWorkspace(s.t.app, s.tokens.outsider, { name: 'Elsewhere', slug: 'elsewhere' });
    const foreign = await createAgent(s.t.app, s.tokens.outsider, 'elsewhere');
    await http().get(`${base}/${foreign.id}`).set(bearer(s.tokens.owner)).expect(404);
    await http().patch(`${base}/${foreign.id}`).set(bearer(s.tokens.owner)).send({ name: 'mine' }).expect(404);
  });

  it('updates name, scopes and ceiling, and clears the ceiling with null', async () => {
    const agent = await createAgent(s.t.app, s.tokens.owner, slug, { max_budget_cents: 100 });
    const res = await http()
      .patch(`${base}/${agent.id}`)
      .set(bearer(s.tokens.admin))
      .send({ name: 'renamed', scopes: ['*'], max_budget_cents: 250 })
      .expect(200);
    expect(res.body.data).toMatchObject({ name: 'renamed', scopes: ['*'], max_budget_cents: 250 });
    const cleared = await http().patch(`${base}/${agent.id}`).set(bearer(s.tokens.admin)).send({ max_budget_cents: null }).expect(200);
    expect(cleared.body.data).toMatchObject({ name: 'renamed', max_budget_cents: null });
    await http().patch(`${base}/${agent.id}`).set(bearer(s.tokens.admin)).send({ name: null }).expect(422);
  });

  it('authenticates agent routes by key only', async () => {
    const agent = await createAgent(s.t.app, s.tokens.owner, slug);
    expect((await budgetCall().expect(401)).body.error.code).toBe('runtime_key_required');
    for (const key of ['krt_test_short', `${agent.api_key.slice(0, -1)}x`, s.tokens.owner, 'sk_whatever']) {
      const res = await budgetCall(key).expect(401);
      expect(res.body).toEqual({ error: { message: expect.any(String), code: 'invalid_runtime_key', hint: expect.any(String) } });
    }
    await budgetCall(agent.api_key).expect(201);
    // Its row is now cached with the key that matched it; a key sharing its lookup still does not match.
    await budgetCall(`${agent.api_key.slice(0, -1)}x`).expect(401);
    await http().get(base).set(bearer(agent.api_key)).expect(401);
  });

  it('locks a suspended agent out until reactivated, and a revoked one for good', async () => {
    const agent = await createAgent(s.t.app, s.tokens.owner, slug);
    const patch = (status: string) => http().patch(`${base}/${agent.id}`).set(bearer(s.tokens.owner)).send({ status });

    expect((await patch('suspended').expect(200)).body.data.status).toBe('suspended');
    expect((await budgetCall(agent.api_key).expect(401)).body.error.code).toBe('invalid_runtime_key');
    await patch('active').expect(200);
    await budgetCall(agent.api_key).expect(201);

    await patch('revoked').expect(200);
    expect((await budgetCall(agent.api_key).expect(401)).body.error.code).toBe('invalid_runtime_key');
    expect((await patch('active').expect(422)).body.error.code).toBeNull();

    const actions = await s.t.app
      .get(DataSource)
      .query(`SELECT action FROM audit_events WHERE subject_id = $1 ORDER BY created_at`, [agent.id]);
    expect(actions.map((e: { action: string }) => e.action)).toEqual([
      'agent.created',
      'agent.suspended',
      'agent.updated',
      'agent.revoked',
    ]);
  });
});
