import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { bearer, createAgent } from '../control-fixtures';
import { agentWithPolicy, simulate, startStackWithMember } from '../decision-fixtures';

describe('policies, policy modules and previews', () => {
  const s = suiteStack(() => startStackWithMember('policies'));
  const http = () => request(s.t.app.getHttpServer());
  const ws = (path: string) => `/control/v1/workspaces/${s.slug}${path}`;
  const post = (path: string, body: object, token = s.owner) => http().post(ws(path)).set(bearer(token)).send(body);

  it('creates new agents under the starter policy unless skipped', async () => {
    const agent = (await http().post(ws('/agents')).set(bearer(s.owner)).send({ name: 'starter' }).expect(201)).body.data;
    expect(agent.starter_policy).toMatchObject({
      agent_id: agent.id,
      status: 'active',
      per_transaction_cap_cents: 50_000,
      approval_threshold_cents: 10_000,
      policy_version: expect.stringMatching(/^pv_/),
    });
    const skipped = await createAgent(s.t.app, s.owner, s.slug, { skip_starter_policy: true });
    expect((skipped as unknown as { starter_policy: unknown }).starter_policy).toBeNull();
  });

  it('creates, reads, lists and updates a policy; a write bumps version and changes policy_version', async () => {
    const agent = await agentWithPolicy(s, null);
    const created = (await post('/policies', { agent_id: agent.id, per_transaction_cap_cents: 100, rules: [{ kind: 'cost_cap', max_cents: 5 }] }).expect(201)).body.data;
    expect(created).toMatchObject({ mode: 'blocklist', status: 'active', version: 1, imports: [], counterparty_allowlist: [] });
    expect(created.rules[0]).toEqual({ id: expect.any(String), kind: 'cost_cap', rule_name: 'cost_cap', action_types: [], max_cents: 5 });
    expect((await http().get(ws(`/policies/${created.id}`)).set(bearer(s.member)).expect(200)).body.data).toEqual(created);
    const list = (await http().get(ws(`/policies?agent_id=${agent.id}`)).set(bearer(s.member)).expect(200)).body;
    expect(list).toMatchObject({ data: [{ id: created.id }], has_more: false, next_cursor: null });
    const paged = (await http().get(ws(`/policies?agent_id=${agent.id}&limit=1`)).set(bearer(s.member)).expect(200)).body;
    expect(paged).toMatchObject({ data: [{ id: created.id }], has_more: true, next_cursor: created.id });
    const updated = (await http().patch(ws(`/policies/${created.id}`)).set(bearer(s.owner)).send({ per_transaction_cap_cents: 200 }).expect(200)).body.data;
    expect(updated).toMatchObject({ version: 2, per_transaction_cap_cents: 200, rules: created.rules });
    expect(updated.policy_version).not.toBe(created.policy_version);
    const same = (await http().patch(ws(`/policies/${created.id}`)).set(bearer(s.owner)).send({}).expect(200)).body.data;
    expect(same.policy_version).toBe(updated.policy_version);
    const disabled = await http().patch(ws(`/policies/${created.id}`)).set(bearer(s.owner)).send({ status: 'disabled' }).expect(200);
    expect(disabled.body.data.status).toBe('disabled');
    expect((await simulate(s.t.app, agent, { action_type: 'x' })).body.data.rule).toBe('no_policy');
    const events = await s.t.app.get(DataSource).query(`SELECT action FROM audit_events WHERE subject_id = $1 ORDER BY created_at`, [created.id]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['policy.created', 'policy.updated', 'policy.updated', 'policy.updated']);
    await http().patch(ws(`/policies/${created.id}`)).set(bearer(s.owner)).send({ agent_id: (await agentWithPolicy(s, null)).id }).expect(422);
  });

  it.each<[Record<string, unknown>, string, string | RegExp]>([
    [{ rules: [{ kind: 'teleport' }] }, 'unknown kind', 'rules[0].kind'],
    [{ rules: [{ kind: 'cost_cap' }] }, 'missing setting', 'rules[0].max_cents'],
    [{ rules: [{ kind: 'cost_cap', max_cents: 1, allow: [] }] }, 'setting of another kind', 'rules[0].allow'],
    [{ rules: [{ kind: 'spend_window', max_cents: 1, window_seconds: 0 }] }, 'window below 1', 'rules[0].window_seconds'],
    [{ rules: [{ kind: 'condition', when: { field: 'colour', operator: 'eq', value: 1 } }] }, 'unknown field', /^rules\[0\]\.when/],
    [{ rules: [{ kind: 'condition', when: { field: 'resource', operator: 'like', value: 1 } }] }, 'unknown operator', /^rules\[0\]\.when/],
    [{ rules: [{ kind: 'condition', when: { all_of: [] } }] }, 'empty combinator', /^rules\[0\]\.when/],
    [{ rules: [{ kind: 'condition', when: { field: 'cost_cents', operator: 'gt', value: 'x' } }] }, 'non-numeric gt', /^rules\[0\]\.when/],
    [{ rules: [{ kind: 'condition', effect: 'maybe', when: { field: 'resource', operator: 'exists' } }] }, 'unknown effect', 'rules[0].effect'],
    [{ imports: ['missing-module'] }, 'unknown import', 'imports'],
    [{ velocity_cap_cents: 10 }, 'velocity without window', 'velocity_window_seconds'],
  ])('refuses %j with 422 (%s), naming the field in param', async (draft, _why, param) => {
    const agent = await agentWithPolicy(s, null);
    const res = await post('/policies', { agent_id: agent.id, ...draft }).expect(422);
    expect(res.body.error.code).toBeNull();
    expect(res.body.error.param).toMatch(param);
  });

  it('refuses a body without agent_id (422), a bad field type (422), an unknown agent (404) and a s.member (403 insufficient_role)', async () => {
    await post('/policies', {}).expect(422);
    await post('/policies', { agent_id: '00000000-0000-4000-8000-000000000000', per_transaction_cap_cents: 'x' }).expect(422);
    await post('/policies', { agent_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
    const res = await post('/policies', { agent_id: '00000000-0000-4000-8000-000000000000' }, s.member).expect(403);
    expect(res.body.error.code).toBe('insufficient_role');
    expect((await post('/policy_modules', { name: 'nope' }, s.member).expect(403)).body.error.code).toBe('insufficient_role');
  });

  it('manages policy modules by name; importing policies evaluate module rules first; delete refused while imported', async () => {
    const created = (await post('/policy_modules', { name: 'no-gambling', description: 'Blocks casinos', rules: [{ kind: 'resource_allowlist', allow: ['shop.com'], rule_name: 'module_allowlist' }] }).expect(201)).body.data;
    expect(created).toMatchObject({ id: expect.any(String), name: 'no-gambling', description: 'Blocks casinos', rules: [{ kind: 'resource_allowlist', rule_name: 'module_allowlist' }] });
    await post('/policy_modules', { name: 'no-gambling' }).expect(422);
    await post('/policy_modules', { name: 'Bad Name' }).expect(422);
    await post('/policy_modules', { name: 'nested', imports: ['no-gambling'] }).expect(422);
    await post('/policy_modules', { name: 'broken', rules: [{ kind: 'cost_cap' }] }).expect(422);
    expect((await http().get(ws('/policy_modules/no-gambling')).set(bearer(s.member)).expect(200)).body.data).toEqual(created);
    await http().get(ws('/policy_modules/absent')).set(bearer(s.member)).expect(404);
    const agent = await agentWithPolicy(s, { imports: ['no-gambling'], rules: [{ kind: 'cost_cap', max_cents: 1, rule_name: 'own_cap' }] });
    const first = (await simulate(s.t.app, agent, { action_type: 'payment.create', resource: 'casino.com', cost_cents: 5 }).expect(200)).body.data;
    expect(first.rule).toBe('module_allowlist');
    expect(first.policy_snapshot[0].imported_rules[0].rule_name).toBe('module_allowlist');
    await http().patch(ws('/policy_modules/no-gambling')).set(bearer(s.owner)).send({ name: 'ignored', rules: [{ kind: 'cost_cap', max_cents: 0, rule_name: 'module_cap' }] }).expect(200);
    const after = (await simulate(s.t.app, agent, { action_type: 'payment.create', resource: 'casino.com', cost_cents: 5 }).expect(200)).body.data;
    expect(after.rule).toBe('module_cap');
    expect(after.policy_version).not.toBe(first.policy_version);
    await http().delete(ws('/policy_modules/no-gambling')).set(bearer(s.owner)).expect(422);
    await http().patch(ws(`/policies/${agent.policyId}`)).set(bearer(s.owner)).send({ imports: [] }).expect(200);
    await http().delete(ws('/policy_modules/no-gambling')).set(bearer(s.owner)).expect(204);
    await http().get(ws('/policy_modules/no-gambling')).set(bearer(s.owner)).expect(404);
    const actions = await s.t.app.get(DataSource).query(`SELECT action FROM audit_events WHERE subject_id = $1 ORDER BY created_at`, [created.id]);
    expect(actions.map((a: { action: string }) => a.action)).toEqual(['policy_module.created', 'policy_module.updated', 'policy_module.deleted']);
  });

  it('lists modules by name ascending, paging with starting_after=<name>', async () => {
    for (const name of ['mod-c', 'mod-a', 'mod-b']) await post('/policy_modules', { name }).expect(201);
    const first = (await http().get(ws('/policy_modules?limit=2')).set(bearer(s.member)).expect(200)).body;
    expect(first.data.map((m: { name: string }) => m.name)).toEqual(['mod-a', 'mod-b']);
    expect(first).toMatchObject({ has_more: true, next_cursor: 'mod-b' });
    const next = (await http().get(ws('/policy_modules?limit=2&starting_after=mod-b')).set(bearer(s.member)).expect(200)).body;
    expect(next.data.map((m: { name: string }) => m.name)).toEqual(['mod-c']);
  });

  it('previews a draft without saving anything', async () => {
    const agent = await agentWithPolicy(s, null);
    const before = await s.t.app.get(DataSource).query(`SELECT COUNT(*)::int AS n FROM audit_events`);
    const res = await post('/policy_previews', { agent_id: agent.id, action_type: 'payment.create', cost_cents: 20_000, policy: { per_transaction_cap_cents: 30_000, approval_threshold_cents: 10_000 } }, s.member).expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'requires_approval', rule: 'approval_threshold', headroom: { per_action_cap_cents: 30_000, session_remaining_cents: 100_000 } });
    const over = await post('/policy_previews', { agent_id: agent.id, action_type: 'x', cost_cents: 200, session_budget_cents: 100, policy: {} }).expect(200);
    expect(over.body.data.rule).toBe('session_budget');
    await post('/policy_previews', { agent_id: agent.id, action_type: 'x', policy: { rules: [{ kind: 'nope' }] } }).expect(422);
    await post('/policy_previews', { agent_id: agent.id, action_type: 'x', policy: { per_transaction_cap_cents: 'a' } }).expect(422);
    const after = await s.t.app.get(DataSource).query(`SELECT COUNT(*)::int AS n FROM audit_events`);
    expect(after[0].n).toBe(before[0].n);
  });
});
