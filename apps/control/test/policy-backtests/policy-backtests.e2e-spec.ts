import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { bearer, createAgent } from '../control-fixtures';
import { act, agentWithPolicy, startDecisionStack, TestAgent } from '../decision-fixtures';

/** The policy in force while the history is recorded: caps, a hold threshold and a (roomy) velocity window. */
const LIVE = { per_transaction_cap_cents: 5000, approval_threshold_cents: 4000, velocity_cap_cents: 1_000_000, velocity_window_seconds: 3600 };
const COSTS = [1000, 2000, 6000, 1500, 3000, 4500, 7000, 2500, 500, 4200, 1000, 3500, 9000, 800, 3900, 5000, 1200, 4100, 600, 2000, 3100, 7500, 2900, 100, 0, 4000, 3000, 2500, 1800, 700];

interface Recorded {
  id: string;
  cost: number;
  outcome: string;
  rule: string | null;
}

interface Draft {
  cap: number;
  hold: number;
  velocity: number | null;
}

/**
 * The oracle: the typed-column policy's rules in their order (per-transaction cap, velocity, hold),
 * over the history in order. Sequential mode counts what the draft let through (allowed or held) in
 * the hour's window; independent mode counts what the history let through.
 */
function oracle(history: Recorded[], draft: Draft, mode: 'sequential' | 'independent') {
  let spentDraft = 0;
  let spentOrig = 0;
  const totals = { allowed: 0, requires_approval: 0, denied: 0 };
  const changed: string[] = [];
  for (const h of history) {
    const used = mode === 'sequential' ? spentDraft : spentOrig;
    let outcome = 'allowed';
    let rule: string | null = null;
    if (h.cost > draft.cap) [outcome, rule] = ['denied', 'per_transaction_cap'];
    else if (draft.velocity !== null && h.cost > 0 && used + h.cost > draft.velocity) [outcome, rule] = ['denied', 'velocity_cap'];
    else if (h.cost > draft.hold) [outcome, rule] = ['requires_approval', 'approval_threshold'];
    if (outcome !== 'denied') spentDraft += h.cost;
    if (h.outcome !== 'denied') spentOrig += h.cost;
    totals[outcome as keyof typeof totals]++;
    // Same rule, other limit: the remedy names the limit, so it changed too.
    const remedyChanged =
      (rule === 'per_transaction_cap' && h.rule === rule && draft.cap !== LIVE.per_transaction_cap_cents) ||
      (rule === 'approval_threshold' && h.rule === rule && draft.hold !== LIVE.approval_threshold_cents);
    if (outcome !== h.outcome || rule !== h.rule || remedyChanged) changed.push(h.id);
  }
  return { totals, changed };
}

const typed = (d: Draft) => ({
  per_transaction_cap_cents: d.cap,
  approval_threshold_cents: d.hold,
  ...(d.velocity === null ? {} : { velocity_cap_cents: d.velocity, velocity_window_seconds: 3600 }),
});

describe('policy backtests', () => {
  let agent: TestAgent;
  let history: Recorded[];
  let from: string;
  let to: string;
  const http = () => request(s.t.app.getHttpServer());
  const ws = (path: string, slug = s.slug) => `/control/v1/workspaces/${slug}${path}`;
  const backtest = (body: Record<string, unknown>, slug = s.slug) => http().post(ws('/policy_backtests', slug)).set(bearer(s.owner)).send({ from, to, ...body });

  async function allChanges(id: string, limit = 7): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (;;) {
      const page: request.Response = await http()
        .get(ws(`/policy_backtests/${id}/changes`))
        .query(after === null ? { limit } : { limit, starting_after: after })
        .set(bearer(s.owner))
        .expect(200);
      all.push(...page.body.data);
      if (!page.body.has_more) return all;
      after = page.body.next_cursor;
    }
  }

  const s = suiteStack(() => startDecisionStack('policy_backtests'));
  beforeAll(async () => {
    from = new Date(Date.now() - 1000).toISOString();
    agent = await agentWithPolicy(s, LIVE, 1_000_000);
    // Another agent's traffic in the same window: a backtest of `agent` never reads it.
    const other = await agentWithPolicy(s, LIVE, 1_000_000);
    await act(s.t.app, other, { action_type: 'api.call', cost_cents: 9000 });
    history = [];
    for (const cost of COSTS) {
      const res = await act(s.t.app, agent, { action_type: 'api.call', resource: 'r1', cost_cents: cost });
      history.push({ id: res.body.data.id, cost, outcome: res.body.decision.outcome, rule: res.body.decision.rule });
    }
    to = new Date(Date.now() + 1000).toISOString();
  });

  it('records a history with every outcome (the fixture the rest relies on)', () => {
    expect(history.every((h) => typeof h.id === 'string')).toBe(true);
    expect(new Set(history.map((h) => h.outcome))).toEqual(new Set(['allowed', 'requires_approval', 'denied']));
  });

  it.each(['sequential', 'independent'])('a draft equal to the policy in force changes nothing (%s)', async (mode) => {
    const res = await backtest({ agent_id: agent.id, policy: LIVE, mode }).expect(201);
    const recorded = oracle(history, { cap: 5000, hold: 4000, velocity: 1_000_000 }, 'sequential').totals;
    expect(res.body.data).toMatchObject({ object: 'policy_backtest', status: 'completed', progress: 1, mode, agent_id: agent.id, evaluated: COSTS.length });
    expect(res.body.data.result).toMatchObject({ evaluated: COSTS.length, changed: 0, totals: { before: recorded, after: recorded } });
    expect(await allChanges(res.body.data.id)).toEqual([]);
  });

  it.each<[string, 'sequential' | 'independent', Draft]>([
    ['stricter', 'sequential', { cap: 4000, hold: 3000, velocity: 15_000 }],
    ['stricter', 'independent', { cap: 4000, hold: 3000, velocity: 15_000 }],
    ['looser', 'sequential', { cap: 8000, hold: 6500, velocity: null }],
    ['looser', 'independent', { cap: 8000, hold: 6500, velocity: null }],
  ])('a %s draft reports exactly the oracle changes (%s)', async (_name, mode, draft) => {
    const expected = oracle(history, draft, mode);
    const res = await backtest({ agent_id: agent.id, policy: typed(draft), mode }).expect(201);
    const { result } = res.body.data;
    expect(result.totals.after).toEqual(expected.totals);
    expect(result.changed).toBe(expected.changed.length);
    expect(expected.changed.length).toBeGreaterThan(0);
    const changes = await allChanges(res.body.data.id);
    expect(changes.map((c) => c.intent_id)).toEqual(expected.changed);
    const byId = new Map(history.map((h) => [h.id, h]));
    for (const c of changes) {
      const h = byId.get(c.intent_id as string) as Recorded;
      expect(c).toMatchObject({ object: 'policy_backtest_change', agent_id: agent.id, amount_cents: h.cost, resource: 'r1', action_type: 'api.call', currency: 'USD' });
      expect(c.original).toMatchObject({ outcome: h.outcome, rule: h.rule, frame_hash: expect.stringMatching(/^fh_/) });
      expect(c.original).not.toHaveProperty('policy_snapshot');
      expect(c.replayed).toMatchObject({ outcome: expect.any(String), policy_version: res.body.data.policy_version });
    }
    const allowedAfter = history.filter((h) => !changes.some((c) => c.intent_id === h.id) && h.outcome === 'allowed').reduce((n, h) => n + h.cost, 0) +
      changes.filter((c) => (c.replayed as { outcome: string }).outcome === 'allowed').reduce((n, c) => n + (c.amount_cents as number), 0);
    expect(result.amounts.USD.after.allowed).toBe(allowedAfter);
    if (mode === 'sequential' && draft.velocity !== null) expect(result.top_rules.map((r: { rule: string }) => r.rule)).toContain('velocity_cap');
  });

  it('covers every agent of the workspace without agent_id, and lists backtests newest first', async () => {
    const res = await backtest({ policy: LIVE }).expect(201);
    expect(res.body.data).toMatchObject({ agent_id: null, mode: 'sequential', evaluated: COSTS.length + 1, result: { changed: 0 } });
    const list = await http().get(ws('/policy_backtests')).query({ limit: 3 }).set(bearer(s.owner)).expect(200);
    expect(list.body.data[0].id).toBe(res.body.data.id);
    const created = list.body.data.map((b: { created_at: string }) => b.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const next = await http().get(ws('/policy_backtests')).query({ limit: 3, starting_after: list.body.next_cursor }).set(bearer(s.owner)).expect(200);
    expect(next.body.data.map((b: { id: string }) => b.id)).not.toContain(res.body.data.id);
    expect(next.body.data[0].created_at <= created[2]).toBe(true);
  });

  it('answers 404 for foreign agents, workspaces and backtests', async () => {
    const slug2 = `${s.slug}-other`;
    await http().post('/control/v1/workspaces').set(bearer(s.owner)).send({ name: 'other', slug: slug2 }).expect(201);
    const foreignAgent = await createAgent(s.t.app, s.owner, slug2, { skip_starter_policy: true });
    await backtest({ agent_id: foreignAgent.id, policy: LIVE }).expect(404);
    await backtest({ agent_id: '00000000-0000-4000-8000-000000000000', policy: LIVE }).expect(404);
    const foreign = await backtest({ policy: LIVE }, slug2).expect(201);
    expect(foreign.body.data.result.evaluated).toBe(0);
    await http().get(ws(`/policy_backtests/${foreign.body.data.id}`)).set(bearer(s.owner)).expect(404);
    await http().get(ws(`/policy_backtests/${foreign.body.data.id}/changes`)).set(bearer(s.owner)).expect(404);
    await http().get(ws('/policy_backtests/00000000-0000-4000-8000-000000000000')).set(bearer(s.owner)).expect(404);
    const mine = await http().get(ws('/policy_backtests')).set(bearer(s.owner)).expect(200);
    expect(mine.body.data.map((b: { id: string }) => b.id)).not.toContain(foreign.body.data.id);
    await http().post(ws('/policy_backtests', 'no-such-workspace')).set(bearer(s.owner)).send({ from, to, policy: LIVE }).expect(404);
    const member = await s.idp.token('member');
    await http().get(ws('/policy_backtests')).set(bearer(member)).expect(404);
  });

  it.each<[string, Record<string, unknown>, number?]>([
    ['a missing to', { to: undefined }, 400],
    ['a missing policy', { policy: undefined }, 400],
    ['from after to', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }],
    ['from equal to to', { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }],
    ['more than 90 days', { from: '2026-01-01T00:00:00Z', to: '2026-04-02T00:00:00Z' }],
    ['a date that is no date-time', { from: 'yesterday' }],
    ['an ordinal date', { from: '2026-032' }],
    ['an unknown mode', { mode: 'parallel' }],
    ['an invalid draft', { policy: { rules: [{ kind: 'nope' }] } }],
    ['a draft importing an unknown module', { policy: { imports: ['nowhere'] } }],
    ['a malformed agent id', { agent_id: 'agent-1' }],
  ])('refuses %s in the envelope', async (_name, body, status = 422) => {
    const res = await backtest({ policy: LIVE, ...body });
    expect([res.status, typeof res.body.error?.message]).toEqual([status, 'string']);
  });
});
