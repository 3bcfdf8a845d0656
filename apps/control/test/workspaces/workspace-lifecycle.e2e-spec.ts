import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace, seatMember } from '../control-fixtures';

describe('workspace export, delete, budgets and agent use', () => {
  let owner: string;
  let admin: string;
  let workspaceId: string;
  let agent: { id: string; api_key: string };
  let budgetId: string;

  const s = suiteStack(() => startIdentifiedTestApp('lifecycle', ['owner', 'admin']));
  beforeAll(async () => {
    [owner, admin] = await Promise.all([s.idp.token('owner'), s.idp.token('admin')]);
    workspaceId = (await createWorkspace(s.t.app, owner, { name: 'Doomed', slug: 'doomed' })).id;
    await seatMember(s.t.app, workspaceId, 'admin', 'admin');
    agent = await createAgent(s.t.app, owner, 'doomed');
    budgetId = (await http().post('/control/v1/agent/budgets').set(bearer(agent.api_key)).send({ budget_cents: 900 }).expect(201)).body.data.id;
    await http().post('/control/v1/agent/spend_tokens').set(bearer(agent.api_key)).send({ budget_id: budgetId, amount_ceiling_cents: 5 }).expect(201);
  });

  const http = () => request(s.t.app.getHttpServer());

  it('records when an agent key was last used', async () => {
    const res = await http().get(`/control/v1/workspaces/doomed/agents/${agent.id}`).set(bearer(owner)).expect(200);
    expect(Date.parse(res.body.data.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('shows the workspace its budgets, filtered by agent', async () => {
    const list = (await http().get(`/control/v1/workspaces/doomed/budgets?agent_id=${agent.id}`).set(bearer(admin)).expect(200)).body;
    expect(list).toEqual({ data: [expect.objectContaining({ id: budgetId, budget_cents: 900, remaining_cents: 900 })], has_more: false, next_cursor: null });
    const one = await http().get(`/control/v1/workspaces/doomed/budgets/${budgetId}`).set(bearer(admin)).expect(200);
    expect(one.body.data).toMatchObject({ id: budgetId, agent_id: agent.id, status: 'active' });
    await http().get(`/control/v1/workspaces/doomed/budgets/${agent.id}`).set(bearer(admin)).expect(404);
  });

  it('exports every record without a secret, to manage_members only', async () => {
    expect((await http().get('/control/v1/workspaces/doomed/export').set(bearer(admin)).expect(403)).body.error.code).toBe('insufficient_role');
    const res = await http().get('/control/v1/workspaces/doomed/export').set(bearer(owner)).expect(200);
    const doc = res.body.data;
    expect(doc.workspace).toMatchObject({ id: workspaceId, slug: 'doomed', role: 'owner' });
    expect(doc.exported_at).toEqual(expect.any(String));
    expect(doc.counts).toEqual({
      memberships: 2,
      invitations: 0,
      agents: 1,
      budgets: 1,
      spend_tokens: 1,
      policy_modules: 0,
      policies: 1,
      intents: 0,
      audit_events: doc.audit_events.length,
      billing_accounts: 0,
      billing_checkouts: 0,
      billing_events: 0,
    });
    expect(doc.policies[0]).toMatchObject({ agent_id: agent.id, status: 'active' });
    expect(doc.agents[0]).toMatchObject({ id: agent.id, api_key_prefix: expect.any(String) });
    expect(doc.agents[0]).not.toHaveProperty('key_digest');
    expect(JSON.stringify(doc)).not.toContain(agent.api_key.slice(12));
  });

  it('refuses a delete without the right confirmation, or from an admin', async () => {
    await http().delete('/control/v1/workspaces/doomed').set(bearer(owner)).send({}).expect(400);
    expect((await http().delete('/control/v1/workspaces/doomed').set(bearer(owner)).send({ confirm: 'dooomed' }).expect(422)).body.error.code).toBeNull();
    expect((await http().delete('/control/v1/workspaces/doomed').set(bearer(admin)).send({ confirm: 'doomed' }).expect(403)).body.error.code).toBe(
      'insufficient_role',
    );
  });

  it('deletes: the workspace is gone for everyone, its agents’ keys stop, its slug is free again', async () => {
    await http().delete('/control/v1/workspaces/doomed').set(bearer(owner)).send({ confirm: 'doomed' }).expect(204);
    await http().get('/control/v1/workspaces/doomed').set(bearer(owner)).expect(404);
    expect((await http().get('/control/v1/workspaces').set(bearer(admin)).expect(200)).body.data).toEqual([]);
    const res = await http().get(`/control/v1/agent/budgets/${budgetId}`).set(bearer(agent.api_key)).expect(401);
    expect(res.body.error.code).toBe('invalid_runtime_key');
    const [event] = await s.t.app
      .get(DataSource)
      .query(`SELECT actor_type, actor_id FROM audit_events WHERE workspace_id = $1 AND action = 'workspace.deleted'`, [workspaceId]);
    expect(event).toEqual({ actor_type: 'person', actor_id: 'owner' });
    const again = await createWorkspace(s.t.app, admin, { name: 'Reborn', slug: 'doomed' });
    expect(again.id).not.toBe(workspaceId);
  });

  it('documents these routes with request and response schemas in the OpenAPI document', async () => {
    const doc = (await http().get('/control/v1/openapi.json').expect(200)).body;
    const ws = '/control/v1/workspaces/{workspace_slug}';
    for (const [path, method] of [
      [`${ws}/audit_events`, 'get'],
      [`${ws}/audit_events/{id}`, 'get'],
      [`${ws}/spend_tokens`, 'get'],
      [`${ws}/budgets/{id}`, 'get'],
      [`${ws}/memberships`, 'post'],
      [`${ws}/memberships/{id}`, 'patch'],
      [`${ws}/invitations`, 'post'],
      [`${ws}/agents`, 'post'],
      ['/control/v1/agent/spend_tokens', 'post'],
      ['/control/v1/invitations/accept', 'post'],
      [ws, 'delete'],
      [`${ws}/export`, 'get'],
      ['/v1/auth/signin', 'post'],
      ['/v1/account', 'get'],
    ]) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
    expect(doc.components.schemas.SpendTokenSchema.properties).toHaveProperty('amount_ceiling_cents');
    expect(doc.components.schemas.MintSpendTokenDto.required).toEqual(expect.arrayContaining(['budget_id', 'amount_ceiling_cents']));
    expect(doc.components.schemas.AuditEventSchema.properties.subject_type.enum).toContain('SpendToken');
  });
});
