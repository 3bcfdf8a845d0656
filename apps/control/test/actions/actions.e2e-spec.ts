import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, newKey, readBudget, simulate, startDecisionStack } from '../decision-fixtures';

describe('agent actions', () => {
  const s = suiteStack(() => startDecisionStack('actions'));
  const http = () => request(s.t.app.getHttpServer());
  const db = () => s.t.app.get(DataSource);
  const policy = { per_transaction_cap_cents: 50_000, approval_threshold_cents: 10_000 };

  it('allows an action: 201 pending, cosigned, reserved, audited as action.allowed', async () => {
    const agent = await agentWithPolicy(s, policy, 20_000);
    const res = await act(s.t.app, agent, { action_type: 'email.send', resource: 'bob@example.com', cost_cents: 500, metadata: { a: 1 }, trace_id: 'tr-1' }).expect(201);
    expect(res.body.data).toMatchObject({
      action_type: 'email.send',
      resource: 'bob@example.com',
      cost_cents: 500,
      currency: 'USD',
      state: 'pending',
      trace_id: 'tr-1',
      metadata: { a: 1 },
      decision: expect.objectContaining({ outcome: 'allowed' }),
    });
    expect(res.body.decision.headroom.session_remaining_cents).toBe(20_000);
    expect(res.body.cosignature).toEqual(expect.any(String));
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(19_500);
    const [event] = await db().query(`SELECT action, subject_type, trace_id, snapshot FROM audit_events WHERE subject_id = $1`, [res.body.data.id]);
    // The snapshot is the intent exactly as answered: its decision (reserved headroom included) is the stored one.
    expect(event).toEqual({ action: 'action.allowed', subject_type: 'ActionIntent', trace_id: 'tr-1', snapshot: res.body.data });
  });

  it('requires the Idempotency-Key header (422 idempotency_key_required)', async () => {
    const agent = await agentWithPolicy(s, policy);
    const res = await act(s.t.app, agent, { action_type: 'email.send' }, null).expect(422);
    expect(res.body.error.code).toBe('idempotency_key_required');
  });

  it('answers 401 runtime_key_required without a key and 404 for a budget of another agent', async () => {
    const agent = await agentWithPolicy(s, policy);
    const other = await agentWithPolicy(s, policy);
    const none = await http().post('/control/v1/agent/actions').set('Idempotency-Key', 'k').send({});
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('runtime_key_required');
    await act(s.t.app, agent, { action_type: 'email.send', budget_id: other.budgetId }).expect(404);
    await act(s.t.app, agent, { action_type: 'Bad Type' }).expect(422);
    await act(s.t.app, agent, { action_type: 'email.send', cost_cents: -1 }).expect(422);
  });

  it('replays a finished key with the original status, intent and decision, even after a policy change', async () => {
    const agent = await agentWithPolicy(s, policy);
    const key = newKey();
    const first = await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 20_000 }, key).expect(202);
    await http().patch(`/control/v1/workspaces/${s.slug}/policies/${agent.policyId}`).set(bearer(s.owner)).send({ approval_threshold_cents: null }).expect(200);
    const again = await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 20_000 }, key).expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.decision).toEqual(first.body.decision);
    const reused = await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1 }, key).expect(409);
    expect(reused.body.error.code).toBe('idempotency_conflict');
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(100_000 - 20_000);
  });

  it('gives 409 idempotency_conflict while the same key is in flight', async () => {
    const agent = await agentWithPolicy(s, policy);
    const key = newKey();
    // Hold the key the way an in-flight request does: inside an open transaction.
    const runner = db().createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`intent:${s.workspaceId}:${agent.id}:action:${key}`]);
      const res = await act(s.t.app, agent, { action_type: 'email.send' }, key).expect(409);
      expect(res.body.error.code).toBe('idempotency_conflict');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await act(s.t.app, agent, { action_type: 'email.send' }, key).expect(201);
  });

  it('creates one intent from 50 concurrent requests with one key', async () => {
    const agent = await agentWithPolicy(s, policy);
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 50 }, () => act(s.t.app, agent, { action_type: 'email.send', cost_cents: 100 }, key)));
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const [{ n }] = await db().query(`SELECT COUNT(*)::int AS n FROM intents WHERE agent_id = $1`, [agent.id]);
    expect(n).toBe(1);
    expect((await readBudget(s.t.app, agent)).spent_cents + 100_000 - (await readBudget(s.t.app, agent)).remaining_cents).toBe(100);
  });

  it('never reserves more than the budget holds under 1,000 concurrent authorizations', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 25_000);
    const results = await Promise.all(Array.from({ length: 1000 }, () => act(s.t.app, agent, { action_type: 'email.send', cost_cents: 100 })));
    const allowed = results.filter((r) => r.status === 201).length;
    const denied = results.filter((r) => r.status === 403);
    expect(allowed).toBe(250);
    // Each reservation saw what the ones before it left, even those sharing a write statement.
    const headroom = results.filter((r) => r.status === 201).map((r) => r.body.decision.headroom.session_remaining_cents as number);
    expect(headroom.sort((a, b) => b - a)).toEqual(Array.from({ length: 250 }, (_, i) => 25_000 - 100 * i));
    expect(denied).toHaveLength(750);
    expect(denied.every((r) => ['session_budget', 'session_inactive'].includes(r.body.decision.rule))).toBe(true);
    const budget = await readBudget(s.t.app, agent);
    expect(budget.remaining_cents).toBe(0);
    const [{ total }] = await db().query(`SELECT COALESCE(SUM(reserved_cents), 0)::int AS total FROM intents WHERE agent_id = $1`, [agent.id]);
    expect(total).toBe(25_000);
  }, 60_000);

  it('never lets concurrent actions overrun a spend window or a rate limit', async () => {
    const agent = await agentWithPolicy(s, {
      rules: [
        { kind: 'spend_window', max_cents: 1_000, window_seconds: 60 },
        { kind: 'rate_limit', max_actions: 5, window_seconds: 60, action_types: ['search'] },
      ],
    });
    const spends = await Promise.all(Array.from({ length: 30 }, () => act(s.t.app, agent, { action_type: 'email.send', cost_cents: 100 })));
    expect(spends.filter((r) => r.status === 201)).toHaveLength(10);
    expect(spends.filter((r) => r.status === 403).every((r) => r.body.decision.rule === 'spend_window')).toBe(true);
    const searches = await Promise.all(Array.from({ length: 20 }, () => act(s.t.app, agent, { action_type: 'search' })));
    expect(searches.filter((r) => r.status === 201)).toHaveLength(5);
  });

  it('simulates without an intent or a reservation, and audits action.simulated', async () => {
    const agent = await agentWithPolicy(s, policy, 10_000);
    const res = await simulate(s.t.app, agent, { action_type: 'email.send', cost_cents: 60_000 }).expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'denied', rule: 'session_budget' });
    expect(res.body.data).not.toHaveProperty('id');
    const allowed = await simulate(s.t.app, agent, { action_type: 'email.send', cost_cents: 100 }).expect(200);
    expect(allowed.body.data.outcome).toBe('allowed');
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(10_000);
    const [{ n }] = await db().query(`SELECT COUNT(*)::int AS n FROM intents WHERE agent_id = $1`, [agent.id]);
    expect(n).toBe(0);
    const events = await db().query(`SELECT action FROM audit_events WHERE subject_id = $1 AND action = 'action.simulated'`, [agent.budgetId]);
    expect(events).toHaveLength(2);
  });

  it('reads, completes and fails intents; wrong states answer 422, others 404', async () => {
    const agent = await agentWithPolicy(s, policy, 10_000);
    const other = await agentWithPolicy(s, policy);
    const a = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1_000 }).expect(201)).body.data;
    const read = await http().get(`/control/v1/agent/actions/${a.id}`).set(bearer(agent.key)).expect(200);
    expect(read.body.data.id).toBe(a.id);
    expect(read.body.cosignature).toEqual(expect.any(String));
    await http().get(`/control/v1/agent/actions/${a.id}`).set(bearer(other.key)).expect(404);
    const done = await http().post(`/control/v1/agent/actions/${a.id}/complete`).set(bearer(agent.key)).expect(200);
    expect(done.body.data.state).toBe('completed');
    expect(await readBudget(s.t.app, agent)).toMatchObject({ spent_cents: 1_000, remaining_cents: 9_000 });
    await http().post(`/control/v1/agent/actions/${a.id}/complete`).set(bearer(agent.key)).expect(422);
    await http().post(`/control/v1/agent/actions/${a.id}/fail`).set(bearer(agent.key)).expect(422);
    const b = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 2_000 }).expect(201)).body.data;
    const failed = await http().post(`/control/v1/agent/actions/${b.id}/fail`).set(bearer(agent.key)).send({ reason: 'smtp down' }).expect(200);
    expect(failed.body.data).toMatchObject({ state: 'failed', failure_reason: 'smtp down' });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(9_000);
    const c = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 20 }).expect(201)).body.data;
    expect((await http().post(`/control/v1/agent/actions/${c.id}/fail`).set(bearer(agent.key)).expect(200)).body.data.failure_reason).toBe('execution_failed');
    const events = await db().query(`SELECT action FROM audit_events WHERE subject_id = ANY($1) ORDER BY created_at`, [[a.id, b.id]]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['action.allowed', 'action.completed', 'action.allowed', 'action.failed']);
    const hooks = await db().query(`SELECT type FROM webhook_events WHERE workspace_id = $1 AND data->>'id' = ANY($2)`, [s.workspaceId, [a.id, b.id]]);
    expect(hooks.map((h: { type: string }) => h.type).sort()).toEqual(['action.completed', 'action.failed']);
  });

  it('records a denial as a denied intent answering 403 with the decision', async () => {
    const agent = await agentWithPolicy(s, policy);
    const res = await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 60_000 }).expect(403);
    expect(res.body.data.state).toBe('denied');
    expect(res.body.decision).toMatchObject({
      outcome: 'denied',
      rule: 'per_transaction_cap',
      detail: { limit_cents: 50_000, requested_cents: 60_000 },
      remedy: { kind: 'lower_amount', max_cents: 50_000 },
    });
    expect(res.body).not.toHaveProperty('cosignature');
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(100_000);
  });
});
