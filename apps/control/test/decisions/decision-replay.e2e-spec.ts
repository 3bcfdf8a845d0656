import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, DecisionStack, pay, startDecisionStack, TestAgent } from '../decision-fixtures';

describe('decision replay and policy versions', () => {
  let other: DecisionStack['slug'];
  let otherOwner: string;
  const s = suiteStack(() => startDecisionStack('decision_replay'));
  beforeAll(async () => {
    otherOwner = await s.idp.token('member');
    other = 'replay-elsewhere';
    await request(s.t.app.getHttpServer()).post('/control/v1/workspaces').set(bearer(otherOwner)).send({ name: other, slug: other }).expect(201);
  });

  const http = () => request(s.t.app.getHttpServer());
  const db = () => s.t.app.get(DataSource);
  const ws = (path: string, slug = s.slug) => `/control/v1/workspaces/${slug}${path}`;
  const replay = (kind: 'action_intents' | 'payment_intents', id: string, slug = s.slug, token = s.owner) => http().post(ws(`/${kind}/${id}/replay`, slug)).set(bearer(token));
  const policy = { per_transaction_cap_cents: 5_000, velocity_cap_cents: 5_000, velocity_window_seconds: 3600, approval_threshold_cents: 2_000 };

  it('replays allowed, held and denied decisions with windows; the pinned version holds after the live policy changes', async () => {
    const agent = await agentWithPolicy(s, policy, 10_000);
    const decisions = [];
    for (const cost of [1_000, 1_500, 2_200, 1_000, 6_000]) decisions.push((await act(s.t.app, agent, { action_type: 'email.send', cost_cents: cost })).body);
    expect(decisions.map((d) => d.decision.outcome)).toEqual(['allowed', 'allowed', 'requires_approval', 'denied', 'denied']);
    expect(decisions[3].decision.rule).toBe('velocity_cap');
    await http().patch(ws(`/policies/${agent.policyId}`)).set(bearer(s.owner)).send({ per_transaction_cap_cents: 100 }).expect(200);
    const after = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 500 })).body.decision;
    expect(after).toMatchObject({ outcome: 'denied', rule: 'per_transaction_cap' });
    expect(after.policy_version).not.toBe(decisions[0].decision.policy_version);

    for (const { data, decision } of decisions) {
      const res = (await replay('action_intents', data.id).expect(200)).body.data;
      expect(res).toEqual({
        object: 'decision_replay',
        intent_id: data.id,
        policy_version: decision.policy_version,
        frame_hash: decision.frame_hash,
        recomputed_frame_hash: decision.frame_hash,
        original: decision,
        replayed: decision,
        matches: true,
        differences: [],
      });
    }
    const version = (await http().get(ws(`/policy_versions/${decisions[0].decision.policy_version}`)).set(bearer(s.owner)).expect(200)).body.data;
    expect(version).toEqual({
      object: 'policy_version',
      id: decisions[0].decision.policy_version,
      rules: decisions[0].decision.policy_snapshot,
      created_at: expect.any(String),
      first_used_at: expect.any(String),
    });
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM policy_versions WHERE workspace_id = $1 AND id = $2`, [s.workspaceId, version.id]);
    expect(n).toBe(1);
    await http().get(ws(`/policy_versions/${after.policy_version}`)).set(bearer(s.owner)).expect(200);
  });

  it('replays payments that cite spend tokens, including a spent token and a budget that ran out', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 5_000 }, 3_000);
    const mint = async (ceiling: number) =>
      (await http().post('/control/v1/agent/spend_tokens').set(bearer(agent.key)).send({ budget_id: agent.budgetId, amount_ceiling_cents: ceiling }).expect(201)).body.data.id;
    const token = await mint(2_000);
    const paid = (await pay(s.t.app, agent, { amount_cents: 1_500, counterparty: 'acme.com', spend_token_id: token }).expect(201)).body;
    const reused = (await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'acme.com', spend_token_id: token }).expect(403)).body;
    const over = (await pay(s.t.app, agent, { amount_cents: 1_600, counterparty: 'acme.com', spend_token_id: await mint(2_000) }).expect(403)).body;
    expect([reused.decision.rule, over.decision.rule]).toEqual(['spend_token_unusable', 'session_budget']);
    for (const { data, decision } of [paid, reused, over]) {
      const res = (await replay('payment_intents', data.id).expect(200)).body.data;
      expect(res).toMatchObject({ matches: true, differences: [], replayed: decision, recomputed_frame_hash: decision.frame_hash });
    }
  });

  it('writes nothing but one audit event, and reports what differs when a recorded input no longer explains the decision', async () => {
    const agent: TestAgent = await agentWithPolicy(s, policy, 10_000);
    const { data, decision } = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1_000 }).expect(201)).body;
    const row = async () => (await db().query(`SELECT to_jsonb(i) AS r FROM intents i WHERE id = $1`, [data.id]))[0].r;
    const audits = async () => (await db().query(`SELECT action, actor_id FROM audit_events WHERE subject_id = $1 ORDER BY created_at`, [data.id])) as { action: string }[];
    const before = await row();
    await replay('action_intents', data.id).expect(200);
    expect(await row()).toEqual(before);
    expect((await audits()).map((a) => a.action)).toEqual(['action.allowed', 'action.replayed']);

    await db().query(`UPDATE intents SET decision_inputs = jsonb_set(decision_inputs, '{windows,0,spent_cents}', '4500') WHERE id = $1`, [data.id]);
    const res = (await replay('action_intents', data.id).expect(200)).body.data;
    expect(res).toMatchObject({ matches: false, original: decision, replayed: { outcome: 'denied', rule: 'velocity_cap' } });
    expect(res.differences.map((d: { field: string }) => d.field)).toEqual(['outcome', 'rule', 'detail', 'remedy', 'headroom']);
    expect(res.differences[0]).toEqual({ field: 'outcome', original: 'allowed', replayed: 'denied' });

    await db().query(`UPDATE intents SET decision_inputs = NULL WHERE id = $1`, [data.id]);
    expect((await replay('action_intents', data.id).expect(422)).body.error.code).toBeNull();
  });

  it('refuses request values RFC 8785 cannot write (no frame_hash could cover them) with 400, recording nothing', async () => {
    const agent = await agentWithPolicy(s, policy, 10_000);
    for (const metadata of ['{"n":1e999}', '{"s":"\\ud800"}', '{"\\udfff":1}']) {
      const body = `{"budget_id":"${agent.budgetId}","action_type":"email.send","metadata":${metadata}}`;
      const res = await http().post('/control/v1/agent/actions').set(bearer(agent.key)).set('Idempotency-Key', `bad-${metadata.length}-${Math.random()}`).set('content-type', 'application/json').send(body);
      expect([res.status, res.body.error.code]).toEqual([400, null]);
    }
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM intents WHERE agent_id = $1`, [agent.id]);
    expect(n).toBe(0);
  });

  it('answers 404 for other kinds, other workspaces and versions the workspace never used', async () => {
    const agent = await agentWithPolicy(s, policy, 10_000);
    const { data, decision } = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 10 }).expect(201)).body;
    await replay('payment_intents', data.id).expect(404);
    await replay('action_intents', '00000000-0000-4000-8000-000000000000').expect(404);
    await replay('action_intents', data.id, other, otherOwner).expect(404);
    await replay('action_intents', 'not-a-uuid').expect(400);
    await http().get(ws(`/policy_versions/${decision.policy_version}`, other)).set(bearer(otherOwner)).expect(404);
    const missing = await http().get(ws(`/policy_versions/pv_${'0'.repeat(64)}`)).set(bearer(s.owner)).expect(404);
    expect(missing.body.error).toEqual({ message: 'No such policy version', code: null, hint: expect.any(String) });
    await http().get(ws('/policy_versions/pv_none')).set(bearer(s.owner)).expect(404);
    await http().get(ws(`/policy_versions/${decision.policy_version}`)).expect(401);
  });
});
