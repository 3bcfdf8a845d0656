import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, pay, readBudget, startStackWithMember, TestAgent } from '../decision-fixtures';

describe('approvals, impact and funds', () => {
  const s = suiteStack(() => startStackWithMember('approvals'));
  const http = () => request(s.t.app.getHttpServer());
  const ws = (path: string) => `/control/v1/workspaces/${s.slug}${path}`;
  const db = () => s.t.app.get(DataSource);
  const held = async (agent: TestAgent, amount: number) => (await pay(s.t.app, agent, { amount_cents: amount, counterparty: 'acme' }).expect(202)).body.data;

  it('approves a held payment once; the agent then reads its cosignature, and it verifies', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 1_000 }, 10_000);
    const intent = await held(agent, 3_000);
    const before = await http().get(`/control/v1/agent/payment_intents/${intent.id}`).set(bearer(agent.key)).expect(200);
    expect(before.body).not.toHaveProperty('cosignature');
    expect((await http().post(ws(`/payment_intents/${intent.id}/approve`)).set(bearer(s.member)).expect(403)).body.error.code).toBe('insufficient_role');
    const approved = await http().post(ws(`/payment_intents/${intent.id}/approve`)).set(bearer(s.owner)).expect(200);
    expect(approved.body.data).toMatchObject({ state: 'pending', resolved_by_sub: 'owner', resolved_at: expect.any(String) });
    await http().post(ws(`/payment_intents/${intent.id}/approve`)).set(bearer(s.owner)).expect(422);
    await http().post(ws(`/payment_intents/${intent.id}/deny`)).set(bearer(s.owner)).expect(422);
    const after = await http().get(`/control/v1/agent/payment_intents/${intent.id}`).set(bearer(agent.key)).expect(200);
    const verified = await http().post('/control/v1/cosign/verify').send({ authorization: after.body.cosignature }).expect(200);
    expect(verified.body.data).toMatchObject({ valid: true, intent_id: intent.id, amount_cents: 3_000 });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(7_000);
    const events = await db().query(`SELECT action FROM audit_events WHERE subject_id = $1 ORDER BY created_at`, [intent.id]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['payment_intent.requires_approval', 'approval.granted']);
    const [hook] = await db().query(`SELECT data FROM webhook_events WHERE type = 'approval.resolved' AND data->'intent'->>'id' = $1`, [intent.id]);
    expect(hook.data).toMatchObject({ resolution: 'approved', kind: 'payment' });
  });

  it('denies a held action, returning its reservation', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 100 }, 10_000);
    const intent = (await act(s.t.app, agent, { action_type: 'ads.buy', cost_cents: 4_000 }).expect(202)).body.data;
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(6_000);
    const denied = await http().post(ws(`/action_intents/${intent.id}/deny`)).set(bearer(s.owner)).send({ reason: 'not now' }).expect(200);
    expect(denied.body.data).toMatchObject({ state: 'denied', failure_reason: 'not now', resolved_by_sub: 'owner' });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(10_000);
    const [event] = await db().query(`SELECT action FROM audit_events WHERE subject_id = $1 AND action LIKE 'approval.%'`, [intent.id]);
    expect(event.action).toBe('approval.denied');
    const other = (await act(s.t.app, agent, { action_type: 'ads.buy', cost_cents: 200 }).expect(202)).body.data;
    expect((await http().post(ws(`/action_intents/${other.id}/deny`)).set(bearer(s.owner)).expect(200)).body.data.failure_reason).toBe('approval_denied');
    await http().post(ws(`/action_intents/${intent.id}/approve`)).set(bearer(s.owner)).expect(422);
    await http().post(ws(`/payment_intents/${intent.id}/approve`)).set(bearer(s.owner)).expect(404);
    expect((await http().get(ws(`/action_intents/${intent.id}`)).set(bearer(s.member)).expect(200)).body.data).toMatchObject({ id: intent.id, state: 'denied' });
    expect((await http().get(ws(`/action_intents/${intent.id}`)).expect(401)).body.error.code).toBe('identity_token_required');
  });

  it('denies a held payment, releasing the reservation and emitting approval.resolved with resolution denied', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 100 }, 10_000);
    const intent = await held(agent, 2_500);
    const denied = await http().post(ws(`/payment_intents/${intent.id}/deny`)).set(bearer(s.owner)).expect(200);
    expect(denied.body.data).toMatchObject({ state: 'denied', failure_reason: 'approval_denied' });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(10_000);
    const [hook] = await db().query(`SELECT data FROM webhook_events WHERE type = 'approval.resolved' AND data->'intent'->>'id' = $1`, [intent.id]);
    expect(hook.data).toMatchObject({ resolution: 'denied', kind: 'payment' });
  });

  it('summarises what approving would do (impact)', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 100, velocity_cap_cents: 50_000, velocity_window_seconds: 3600, monthly_cap_cents: 90_000 }, 20_000);
    const token = (await http().post('/control/v1/agent/spend_tokens').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_ceiling_cents: 5_000, counterparty: 'acme' }).expect(201)).body.data;
    const intent = (await pay(s.t.app, agent, { amount_cents: 2_000, counterparty: 'acme', spend_token_id: token.id }).expect(202)).body.data;
    await held(agent, 500);
    const impact = (await http().get(ws(`/payment_intents/${intent.id}/impact`)).set(bearer(s.member)).expect(200)).body.data;
    expect(impact).toEqual({
      amount_cents: 2_000,
      currency: 'USD',
      rule: 'approval_threshold',
      executed: false,
      session: { id: agent.budgetId, budget_cents: 20_000, spent_cents: 0, remaining_cents: 17_500, returns_on_deny_cents: 2_000, open_holds: 1 },
      agent: { id: agent.id, name: 'buyer', mode: 'test', scopes: [] },
      windows: [
        { kind: 'velocity', window_seconds: 3600, cap_cents: 50_000, spent_cents: 2_500, remaining_cents: 47_500 },
        { kind: 'monthly', window_seconds: null, cap_cents: 90_000, spent_cents: 2_500, remaining_cents: 87_500 },
      ],
      spend_token: { id: token.id, amount_ceiling_cents: 5_000, counterparty: 'acme', expires_at: null, single_use: true },
    });
    const action = (await act(s.t.app, agent, { action_type: 'x', cost_cents: 300 }).expect(202)).body.data;
    const actionImpact = (await http().get(ws(`/action_intents/${action.id}/impact`)).set(bearer(s.member)).expect(200)).body.data;
    expect(actionImpact).not.toHaveProperty('spend_token');
    await http().get(ws(`/action_intents/${intent.id}/impact`)).set(bearer(s.member)).expect(404);
  });

  it('lists the held queue with filters, sorting, paging and a summary', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 10 }, 100_000);
    const a = await held(agent, 300);
    const b = await held(agent, 100);
    const c = await held(agent, 200);
    const q = async (query: string) => (await http().get(ws(`/payment_intents?agent_id=${agent.id}&${query}`)).set(bearer(s.member)).expect(200)).body;
    const byAge = await q('state=held');
    expect(byAge.data.map((i: { id: string }) => i.id)).toEqual([c.id, b.id, a.id]);
    expect(byAge.summary).toEqual({ total: 3, total_cents: 600 });
    expect((await q('state=requires_approval&sort=amount&direction=asc')).data.map((i: { id: string }) => i.id)).toEqual([b.id, c.id, a.id]);
    expect((await q('sort=bogus&direction=bogus')).data.map((i: { id: string }) => i.id)).toEqual([c.id, b.id, a.id]);
    const filtered = await q('min_amount_cents=150');
    expect(filtered.summary).toEqual({ total: 2, total_cents: 500 });
    const page = await q('limit=2&sort=amount');
    expect(page).toMatchObject({ has_more: true, next_cursor: c.id });
    expect((await q(`limit=2&sort=amount&starting_after=${page.next_cursor}`)).data.map((i: { id: string }) => i.id)).toEqual([b.id]);
    expect((await q(`held_before=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).data).toEqual([]);
    expect((await q('held_before=not-a-date')).data).toHaveLength(3);
    expect((await q('agent_mode=live')).data).toHaveLength(0);
    expect((await q('agent_mode=test')).data).toHaveLength(3);
    await http().get(ws('/payment_intents?agent_mode=staging')).set(bearer(s.member)).expect(400);
    expect((await http().get(ws(`/payment_intents/${a.id}`)).set(bearer(s.member)).expect(200)).body.data.id).toBe(a.id);
    const actions = await http().get(ws(`/action_intents?action_type=none.here`)).set(bearer(s.member)).expect(200);
    expect(actions.body).toEqual({ data: [], has_more: false, next_cursor: null, summary: { total: 0, total_cents: 0 } });
  });

  it('reports funds: available, held and committed', async () => {
    const res = await http().get(ws('/funds')).set(bearer(s.member)).expect(200);
    const [expected] = await db().query(
      `SELECT (SELECT COALESCE(SUM(amount_cents), 0) FROM intents WHERE workspace_id = $1 AND state = 'held')::int AS held,
              (SELECT COALESCE(SUM(amount_cents), 0) FROM intents WHERE workspace_id = $1 AND state IN ('pending', 'executed', 'completed'))::int AS committed`,
      [s.workspaceId],
    );
    expect(res.body.data).toMatchObject({
      currency: 'USD',
      available_cents: expect.any(Number),
      held_cents: expected.held,
      committed_cents: expected.committed,
      ledger_committed_cents: 0,
      unprojected_cents: expected.committed,
      ledger_ready: false,
      by_agent: [],
    });
    expect(expected.held).toBeGreaterThan(0);
  });
});
