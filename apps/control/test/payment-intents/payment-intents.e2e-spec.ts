import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { agentWithPolicy, pay, readBudget, startDecisionStack, TestAgent } from '../decision-fixtures';

describe('payment intents', () => {
  const s = suiteStack(() => startDecisionStack('payments'));
  const http = () => request(s.t.app.getHttpServer());
  const db = () => s.t.app.get(DataSource);
  const mint = async (agent: TestAgent, body: Record<string, unknown>) =>
    (await http().post('/control/v1/agent/spend_tokens').set(bearer(agent.key)).send({ budget_id: agent.budgetId, ...body }).expect(201)).body.data;

  it('allows a payment: 201 pending with a cosignature, headroom before the reservation', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 50_000);
    const res = await pay(s.t.app, agent, { amount_cents: 12_000, counterparty: 'acme', decision_context: { source: 'test' }, metadata: { order: 'o-1' } }).expect(201);
    expect(res.body.data).toMatchObject({
      agent_id: agent.id,
      budget_id: agent.budgetId,
      amount_cents: 12_000,
      currency: 'USD',
      counterparty: 'acme',
      state: 'pending',
      spend_token_id: null,
      failure_reason: null,
      resolved_by_sub: null,
      decision_context: { source: 'test', decision: expect.objectContaining({ outcome: 'allowed' }) },
    });
    expect(res.body.decision).toMatchObject({
      outcome: 'allowed',
      rule: null,
      detail: {},
      remedy: null,
      headroom: { session_remaining_cents: 50_000, per_action_cap_cents: 50_000 },
      policy_version: expect.stringMatching(/^pv_[0-9a-f]{64}$/),
      frame_hash: expect.stringMatching(/^fh_[0-9a-f]{64}$/),
      policy_snapshot: [expect.objectContaining({ rules: [expect.objectContaining({ kind: 'cost_cap', rule_name: 'per_transaction_cap' })] })],
    });
    expect(res.body.cosignature).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(38_000);
    const [audit] = await db().query(`SELECT action, subject_type, snapshot FROM audit_events WHERE subject_id = $1`, [res.body.data.id]);
    // Written by the same statement as the intent, the snapshot is the intent exactly as answered.
    expect(audit).toEqual({ action: 'payment_intent.allowed', subject_type: 'PaymentIntent', snapshot: res.body.data });
    const replay = await http()
      .post('/control/v1/agent/payment_intents')
      .set(bearer(agent.key))
      .send({ budget_id: agent.budgetId, idempotency_key: res.body.data.idempotency_key, amount_cents: 12_000, counterparty: 'acme', decision_context: { source: 'test' }, metadata: { order: 'o-1' } })
      .expect(201);
    expect(replay.body.data.id).toBe(res.body.data.id);
  });

  it('refuses a payment without idempotency_key with 400 and a foreign budget with 404', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const other = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const res = await http().post('/control/v1/agent/payment_intents').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_cents: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBeNull();
    await pay(s.t.app, agent, { amount_cents: 0 }).expect(422);
    await pay(s.t.app, agent, { amount_cents: 10, budget_id: other.budgetId }).expect(404);
  });

  it('evaluates payments as payment.create against the counterparty, sharing caps with actions', async () => {
    const agent = await agentWithPolicy(s, { counterparty_allowlist: ['acme'], rules: [{ kind: 'condition', when: { field: 'action_type', operator: 'ne', value: 'payment.create' } }] });
    const res = await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'evil' }).expect(403);
    expect(res.body.data.state).toBe('denied');
    expect(res.body.decision).toMatchObject({ rule: 'counterparty_allowlist', remedy: { kind: 'allow_resource', resource: 'evil' } });
    await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'acme' }).expect(201);
    const [event] = await db().query(`SELECT action, snapshot FROM audit_events WHERE subject_id = $1`, [res.body.data.id]);
    // A denial reserves nothing; its snapshot is still the intent exactly as answered.
    expect(event).toEqual({ action: 'payment_intent.denied', snapshot: res.body.data });
  });

  it('holds a payment above the approval threshold: 202 held, reserved, no cosignature, webhook payment.requires_approval', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 1_000 }, 10_000);
    const res = await pay(s.t.app, agent, { amount_cents: 5_000 }).expect(202);
    expect(res.body.data.state).toBe('held');
    expect(res.body.decision).toMatchObject({ outcome: 'requires_approval', rule: 'approval_threshold', detail: { threshold_cents: 1_000, requested_cents: 5_000 } });
    expect(res.body).not.toHaveProperty('cosignature');
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(5_000);
    const [hook] = await db().query(`SELECT type FROM webhook_events WHERE data->>'id' = $1`, [res.body.data.id]);
    expect(hook.type).toBe('payment.requires_approval');
    await http().post(`/control/v1/agent/payment_intents/${res.body.data.id}/complete`).set(bearer(agent.key)).expect(422);
    const failed = await http().post(`/control/v1/agent/payment_intents/${res.body.data.id}/fail`).set(bearer(agent.key)).expect(200);
    expect(failed.body.data).toMatchObject({ state: 'failed', failure_reason: 'execution_failed' });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(10_000);
  });

  it('completes (executed, reservation spent, budget.low) and fails (released) payments', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 10_000 }, 10_000);
    const a = (await pay(s.t.app, agent, { amount_cents: 9_500 }).expect(201)).body.data;
    const done = await http().post(`/control/v1/agent/payment_intents/${a.id}/complete`).set(bearer(agent.key)).send({ ledger_transaction_id: 'txn_1' }).expect(200);
    expect(done.body.data).toMatchObject({ state: 'executed', ledger_transaction_id: 'txn_1' });
    expect(await readBudget(s.t.app, agent)).toMatchObject({ spent_cents: 9_500, remaining_cents: 500 });
    const hooks = await db().query(`SELECT type FROM webhook_events WHERE workspace_id = $1 AND (data->>'id' = $2 OR data->>'budget_id' = $3) ORDER BY seq`, [s.workspaceId, a.id, agent.budgetId]);
    expect(hooks.map((h: { type: string }) => h.type)).toEqual(['payment.executed', 'budget.low']);
    const b = (await pay(s.t.app, agent, { amount_cents: 400 }).expect(201)).body.data;
    const failed = await http().post(`/control/v1/agent/payment_intents/${b.id}/fail`).set(bearer(agent.key)).send({ reason: 'card declined' }).expect(200);
    expect(failed.body.data).toMatchObject({ state: 'failed', failure_reason: 'card declined' });
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(500);
    const actions = await db().query(`SELECT action FROM audit_events WHERE subject_id = ANY($1) ORDER BY created_at`, [[a.id, b.id]]);
    expect(actions.map((e: { action: string }) => e.action)).toEqual(['payment_intent.allowed', 'payment_intent.executed', 'payment_intent.allowed', 'payment_intent.failed']);
    await http().get(`/control/v1/agent/payment_intents/${b.id}`).set(bearer(agent.key)).expect(200);
    // budget.low went out when the budget first fell to 10%; later payments below the line repeat nothing.
    const c = (await pay(s.t.app, agent, { amount_cents: 100 }).expect(201)).body.data;
    await http().post(`/control/v1/agent/payment_intents/${c.id}/complete`).set(bearer(agent.key)).expect(200);
    const lows = await db().query(`SELECT data FROM webhook_events WHERE type = 'budget.low' AND data->>'budget_id' = $1`, [agent.budgetId]);
    expect(lows).toEqual([{ data: { budget_id: agent.budgetId, agent_id: agent.id, budget_cents: 10_000, remaining_cents: 500 } }]);
  });

  it('checks a cited spend token first: ceiling, pinned counterparty, unusable; consumes it on allow', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const token = await mint(agent, { amount_ceiling_cents: 1_000, counterparty: 'acme' });
    const ceiling = await pay(s.t.app, agent, { amount_cents: 1_001, counterparty: 'acme', spend_token_id: token.id }).expect(403);
    expect(ceiling.body.decision).toMatchObject({ rule: 'spend_token_ceiling', remedy: { kind: 'lower_amount', max_cents: 1_000 } });
    const payee = await pay(s.t.app, agent, { amount_cents: 500, counterparty: 'other', spend_token_id: token.id }).expect(403);
    expect(payee.body.decision).toMatchObject({ rule: 'spend_token_counterparty', remedy: { kind: 'use_pinned_counterparty', resource: 'acme' } });
    const ok = await pay(s.t.app, agent, { amount_cents: 500, counterparty: 'acme', spend_token_id: token.id }).expect(201);
    expect(ok.body.data.spend_token_id).toBe(token.id);
    const again = await pay(s.t.app, agent, { amount_cents: 500, counterparty: 'acme', spend_token_id: token.id }).expect(403);
    expect(again.body.decision).toMatchObject({ rule: 'spend_token_unusable', remedy: { kind: 'new_spend_token' } });
    const other = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    await pay(s.t.app, other, { amount_cents: 1, spend_token_id: token.id }).expect(404);
  });

  it('lets exactly one of concurrent payments spend one token', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const token = await mint(agent, { amount_ceiling_cents: 1_000 });
    const results = await Promise.all(Array.from({ length: 10 }, () => pay(s.t.app, agent, { amount_cents: 100, spend_token_id: token.id })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.decision.rule === 'spend_token_unusable')).toBe(true);
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(100_000 - 100);
  });

  it('records the loser of a token race as failed (spend_token_unusable), its reservation released', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const token = await mint(agent, { amount_ceiling_cents: 1_000 });
    // A rival payment spends the token but has not committed: ours reads it `issued`, then waits on the row.
    const rival = db().createQueryRunner();
    await rival.startTransaction();
    let pending: Promise<request.Response> | undefined;
    try {
      await rival.query(`UPDATE spend_tokens SET status = 'consumed', consumed_at = now() WHERE id = $1`, [token.id]);
      pending = pay(s.t.app, agent, { amount_cents: 300, spend_token_id: token.id }).then((r) => r);
      for (let waited = 0; ; waited += 20) {
        const [blocked] = await db().query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE spend_tokens%'`);
        if (blocked.n > 0) break;
        if (waited > 5_000) throw new Error('the payment never reached the token');
        await new Promise((r) => setTimeout(r, 20));
      }
      await rival.commitTransaction();
    } finally {
      if (rival.isTransactionActive) await rival.rollbackTransaction();
      await rival.release();
    }
    const res = await (pending as Promise<request.Response>);
    expect(res.status).toBe(403);
    expect(res.body.data).toMatchObject({ state: 'failed', failure_reason: 'spend_token_unusable', spend_token_id: token.id });
    expect(res.body.decision).toMatchObject({ outcome: 'denied', rule: 'spend_token_unusable', remedy: { kind: 'new_spend_token' } });
    expect(res.body).not.toHaveProperty('cosignature');
    expect((await readBudget(s.t.app, agent)).remaining_cents).toBe(100_000);
    const [audit] = await db().query(`SELECT action FROM audit_events WHERE subject_id = $1`, [res.body.data.id]);
    expect(audit.action).toBe('payment_intent.failed');
    const [hook] = await db().query(`SELECT type FROM webhook_events WHERE data->>'id' = $1`, [res.body.data.id]);
    expect(hook.type).toBe('payment.failed');
  });

  it('refuses an agent suspended elsewhere at once, though its key is still cached here', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    await pay(s.t.app, agent, { amount_cents: 100 }).expect(201);
    // As another replica would: straight in the database, so this process's key cache is not told.
    await db().query(`UPDATE agents SET status = 'suspended' WHERE id = $1`, [agent.id]);
    const res = await pay(s.t.app, agent, { amount_cents: 100 }).expect(401);
    expect(res.body.error.code).toBe('invalid_runtime_key');
    await http().post('/control/v1/agent/payment_intents/simulate').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_cents: 100 }).expect(401);
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM intents WHERE agent_id = $1`, [agent.id]);
    expect(n).toBe(1);
  });

  it('writes one action.simulated row per simulation when many run at once', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 1_000 });
    const traces = Array.from({ length: 30 }, (_, i) => `sim-many-${i}`);
    const results = await Promise.all(
      traces.map((trace_id) => http().post('/control/v1/agent/payment_intents/simulate').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_cents: 10, trace_id })),
    );
    expect(results.map((r) => r.status)).toEqual(traces.map(() => 200));
    const rows = await db().query(`SELECT trace_id, snapshot FROM audit_events WHERE action = 'action.simulated' AND trace_id = ANY($1) ORDER BY trace_id`, [traces]);
    expect(rows.map((r: { trace_id: string }) => r.trace_id)).toEqual([...traces].sort());
    expect(rows[0].snapshot).toMatchObject({ kind: 'payment', cost_cents: 10, decision: { outcome: 'allowed' } });
  });

  it('reserves exactly what each budget holds when concurrent payments of several agents share write statements', async () => {
    const agents = await Promise.all([0, 1, 2].map(() => agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 2_000)));
    const results = await Promise.all(Array.from({ length: 90 }, (_, i) => pay(s.t.app, agents[i % 3], { amount_cents: 100 }).then((r) => ({ r, agent: i % 3 }))));
    for (const [n, agent] of agents.entries()) {
      const mine = results.filter((x) => x.agent === n).map((x) => x.r);
      expect(mine.filter((r) => r.status === 201)).toHaveLength(20);
      expect(mine.filter((r) => r.status === 403).every((r) => r.body.decision.rule === 'session_budget' || r.body.decision.rule === 'session_inactive')).toBe(true);
      expect(await readBudget(s.t.app, agent)).toMatchObject({ remaining_cents: 0 });
      const [{ n: audited }] = await db().query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'payment_intent.allowed' AND snapshot->>'agent_id' = $1`, [agent.id]);
      expect(audited).toBe(20);
    }
  });

  it('simulates a payment without recording or spending anything', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 1_000 });
    const res = await http().post('/control/v1/agent/payment_intents/simulate').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_cents: 2_000, counterparty: 'acme', trace_id: 'sim-1' }).expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'denied', rule: 'per_transaction_cap' });
    expect((await readBudget(s.t.app, agent)).spent_cents).toBe(0);
    const [event] = await db().query(`SELECT action FROM audit_events WHERE trace_id = 'sim-1'`);
    expect(event.action).toBe('action.simulated');
  });
});
