import fc from 'fast-check';
import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, pay, startDecisionStack, TestAgent } from '../decision-fixtures';

/**
 * Every recorded decision replays to itself: generated policies, budgets and histories of
 * authorizations, approvals, denials, completions, failures and policy changes, all through the API;
 * then each decision is replayed under its pinned version and recorded counters, once while the
 * live policy has moved on and again after control restarts.
 */
type Kind = 'action_intents' | 'payment_intents';
type Op =
  | { op: 'act'; cost: number; type: string }
  | { op: 'pay'; amount: number; counterparty: string }
  | { op: 'approve' | 'deny' | 'complete' | 'fail'; pick: number }
  | { op: 'policy'; policy: Record<string, unknown> };

const policyArb = fc.record({
  per_transaction_cap_cents: fc.integer({ min: 500, max: 3_000 }),
  approval_threshold_cents: fc.integer({ min: 200, max: 2_500 }),
  velocity_cap_cents: fc.integer({ min: 1_000, max: 8_000 }),
  velocity_window_seconds: fc.constantFrom(60, 3_600),
  counterparty_allowlist: fc.constantFrom([], ['acme'], ['acme', 'globex']),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('act' as const), cost: fc.integer({ min: 0, max: 3_500 }), type: fc.constantFrom('email.send', 'api.call') }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('pay' as const), amount: fc.integer({ min: 1, max: 3_500 }), counterparty: fc.constantFrom('acme', 'globex') }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('approve' as const, 'deny' as const, 'complete' as const, 'fail' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('policy' as const), policy: policyArb }) },
);
const REPLAYED = ['outcome', 'rule', 'remedy', 'headroom', 'policy_version', 'frame_hash'] as const;

describe('decision replay (property)', () => {
  const s = suiteStack(() => startDecisionStack('replay_property'));

  const http = () => request(s.t.app.getHttpServer());
  const ws = (path: string) => `/control/v1/workspaces/${s.slug}${path}`;
  const agentPath = (kind: Kind) => (kind === 'action_intents' ? '/control/v1/agent/actions' : '/control/v1/agent/payment_intents');

  async function replayAll(recorded: { kind: Kind; id: string; decision: Record<string, unknown> }[]) {
    const wrong: unknown[] = [];
    for (const { kind, id, decision } of recorded) {
      const res = await http().post(ws(`/${kind}/${id}/replay`)).set(bearer(s.owner));
      const pick = (d: Record<string, unknown>) => Object.fromEntries(REPLAYED.map((f) => [f, d[f]]));
      if (res.status !== 200 || !res.body.data.matches || res.body.data.recomputed_frame_hash !== decision.frame_hash) {
        wrong.push({ kind, id, status: res.status, differences: res.body.data?.differences });
      } else expect(pick(res.body.data.replayed)).toEqual(pick(decision));
    }
    return wrong;
  }

  async function run(policy: Record<string, unknown>, budgetCents: number, ops: Op[]) {
    const agent: TestAgent = await agentWithPolicy(s, policy, budgetCents);
    const recorded: { kind: Kind; id: string; decision: Record<string, unknown> }[] = [];
    const held: { kind: Kind; id: string }[] = [];
    const spendable: { kind: Kind; id: string }[] = [];
    const take = <T>(list: T[], pick: number) => (list.length ? list.splice(pick % list.length, 1)[0] : undefined);
    for (const op of ops) {
      if (op.op === 'act' || op.op === 'pay') {
        const kind: Kind = op.op === 'act' ? 'action_intents' : 'payment_intents';
        const res =
          op.op === 'act'
            ? await act(s.t.app, agent, { action_type: op.type, cost_cents: op.cost })
            : await pay(s.t.app, agent, { amount_cents: op.amount, counterparty: op.counterparty });
        expect([201, 202, 403]).toContain(res.status);
        recorded.push({ kind, id: res.body.data.id, decision: res.body.decision });
        if (res.status === 201) spendable.push({ kind, id: res.body.data.id });
        if (res.status === 202) held.push({ kind, id: res.body.data.id });
      } else if (op.op === 'approve' || op.op === 'deny') {
        const intent = take(held, op.pick);
        if (!intent) continue;
        const res = await http().post(ws(`/${intent.kind}/${intent.id}/${op.op}`)).set(bearer(s.owner)).send({});
        expect([200, 409, 422]).toContain(res.status);
        if (op.op === 'approve' && res.status === 200) spendable.push(intent);
      } else if (op.op === 'complete' || op.op === 'fail') {
        const intent = take(spendable, op.pick);
        if (!intent) continue;
        const res = await http().post(`${agentPath(intent.kind)}/${intent.id}/${op.op}`).set(bearer(agent.key)).send({});
        expect([200, 409, 422]).toContain(res.status);
      } else if (op.op === 'policy' && agent.policyId) {
        const res = await http().patch(ws(`/policies/${agent.policyId}`)).set(bearer(s.owner)).send(op.policy);
        expect([200, 422]).toContain(res.status);
      }
    }
    return recorded;
  }

  it('replays every decision of generated histories to itself, after policy changes and after a restart', async () => {
    const histories: { kind: Kind; id: string; decision: Record<string, unknown> }[][] = [];
    await fc.assert(
      fc.asyncProperty(policyArb, fc.integer({ min: 2_000, max: 40_000 }), fc.array(opArb, { minLength: 60, maxLength: 110 }), async (policy, budget, ops) => {
        const recorded = await run(policy, budget, ops);
        expect(await replayAll(recorded)).toEqual([]);
        histories.push(recorded);
      }),
      { numRuns: 3, seed: 2011, endOnFailure: true },
    );
    const all = histories.flat();
    expect(all.length).toBeGreaterThan(100);
    // The histories held every outcome, so replay was tested against each.
    expect(new Set(all.map((r) => r.decision.outcome))).toEqual(new Set(['allowed', 'requires_approval', 'denied']));
    // ...and rules that read recorded counters (window spend, budget), not only the request itself.
    expect(all.map((r) => r.decision.rule)).toEqual(expect.arrayContaining(['velocity_cap', 'per_transaction_cap', 'counterparty_allowlist']));
    expect(new Set(all.map((r) => r.decision.policy_version)).size).toBeGreaterThan(3);
    await s.t.restart();
    expect(await replayAll(all)).toEqual([]);
  }, 240_000);
});
