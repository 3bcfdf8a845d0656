import fc from 'fast-check';
import { outcomeCounts } from '../decisions/counted-intents';
import type { Outcome } from '../decisions/decision';
import { decideVerdict, DecisionVerdict } from '../decisions/decision-engine';
import { DecisionCounters, frameOf, recordedWindows, TokenCounters } from '../decisions/decision-inputs';
import { compilePolicies, PolicySnapshot, WindowSpec, WindowUsage } from '../policies/policy-compiler';
import { actionTypeMatcher } from '../policies/action-types';
import type { LoadedPolicies } from '../policies/policy-engine.service';
import { normalizeRules } from '../policies/policy-rules';
import { policyVersion } from '../policies/policy-snapshot';
import { BacktestChange, BacktestMode, BacktestSimulator, HistoryRecord } from './backtest-simulator';

const T0 = Date.UTC(2026, 2, 15, 12, 0, 0);
const AGENT = { mode: 'live' as const, scopes: [] };

function policy(rules: unknown[]): LoadedPolicies {
  const snapshots: PolicySnapshot[] = [{ id: 'pol_1', mode: 'blocklist', imports: [], imported_rules: [], rules: normalizeRules(rules) }];
  return { snapshots, version: policyVersion(snapshots), compiled: compilePolicies(snapshots) };
}

/** A request as an agent sent it; `at` in seconds after T0. */
interface Request {
  at: number;
  action_type: string;
  cost: number;
  token?: TokenCounters;
}

/** An intent that counts in windows and holds a reservation. */
interface Counted {
  at: number;
  action_type: string;
  cost: number;
}

/** A window's LIKE patterns over the action types these tests use (no escaped characters). */
const inWindow = (w: WindowSpec, actionType: string) => actionTypeMatcher(w.actionTypes)(actionType);

/** What the intents table answers for a window at `now`: the counted intents created since its start. */
function measure(windows: WindowSpec[], counted: Counted[], now: number): WindowUsage[] {
  return windows.map((w) => {
    const inside = counted.filter((c) => c.at >= w.since(now) && inWindow(w, c.action_type));
    return { spent_cents: inside.reduce((s, c) => s + c.cost, 0), count: inside.length, oldest_at: inside.length ? Math.min(...inside.map((c) => c.at)) : null };
  });
}

/**
 * The live service, reduced to one agent and one budget: each request decided by the engine on the
 * counters the intents table would give, allowed and held ones counting and reserving from then on.
 * `keep` fixes the outcome of requests before `from` (history the draft cannot change).
 */
function live(policies: LoadedPolicies, requests: Request[], budgetCents: number, keep: (i: number) => Outcome | null = () => null) {
  const counted: Counted[] = [];
  return requests.map((r, i) => {
    const now = T0 + r.at * 1000;
    const counters: DecisionCounters = {
      now,
      agent: AGENT,
      budget: { status: 'active', budget_cents: budgetCents, spent_cents: 0, reserved_cents: counted.reduce((s, c) => s + c.cost, 0) },
      windows: recordedWindows(policies.compiled.windows, measure(policies.compiled.windows, counted, now), now),
      spend_token: r.token ?? null,
    };
    const frame = { workspace_id: 'ws_1', agent_id: 'agt_1', budget_id: 'bud_1', action_type: r.action_type, resource: 'acme', cost_cents: r.cost, currency: 'USD', metadata: {} };
    const verdict = decideVerdict(policies, frame, counters);
    const outcome = keep(i) ?? verdict.outcome;
    if (outcomeCounts(outcome)) counted.push({ at: now, action_type: r.action_type, cost: r.cost });
    return { counters, verdict, outcome, counted: [...counted] };
  });
}

/** The intents `live` recorded under `policies`, as the backtest reads them; the first `warmUp` come before `from`. */
function history(policies: LoadedPolicies, requests: Request[], budgetCents: number, warmUp = 0): HistoryRecord[] {
  return live(policies, requests, budgetCents).map(({ counters, verdict }, i) => ({
    id: `int_${String(i).padStart(3, '0')}`,
    workspace_id: 'ws_1',
    agent_id: 'agt_1',
    budget_id: 'bud_1',
    action_type: requests[i].action_type,
    resource: 'acme',
    amount_cents: requests[i].cost,
    currency: 'USD',
    metadata: {},
    at: counters.now,
    released_at: null,
    spend_token_id: requests[i].token?.id ?? null,
    outcome: verdict.outcome,
    rule: verdict.rule,
    remedy_json: JSON.stringify(verdict.remedy),
    session_remaining_cents: verdict.headroom.session_remaining_cents,
    inputs: { ...counters, settlement: null },
    evaluated: i >= warmUp,
  }));
}

function simulate(draft: LoadedPolicies, mode: BacktestMode, records: HistoryRecord[]): { changes: (BacktestChange | null)[]; simulator: BacktestSimulator } {
  const simulator = new BacktestSimulator(draft, mode, new Map([['agt_1', AGENT]]));
  return { changes: records.map((r) => simulator.next(r)), simulator };
}

const rules = (changes: (BacktestChange | null)[]) => changes.map((c) => (c ? `${c.replayed.outcome}:${c.replayed.rule}` : '='));

describe('BacktestSimulator', () => {
  const spend = (at: number, cost: number, action_type = 'payment.create'): Request => ({ at, action_type, cost });

  it('changes nothing when the draft is the recorded policy, in either mode', () => {
    const recorded = policy([{ kind: 'spend_window', max_cents: 300, window_seconds: 60 }, { kind: 'approval_threshold', above_cents: 150 }]);
    const records = history(recorded, [spend(0, 200), spend(10, 200), spend(20, 100), spend(61, 200)], 10_000);
    expect(records.map((r) => r.outcome)).toEqual(['requires_approval', 'denied', 'allowed', 'requires_approval']);
    for (const mode of ['independent', 'sequential'] as const) {
      const { changes, simulator } = simulate(recorded, mode, records);
      expect(changes).toEqual([null, null, null, null]);
      expect(simulator.result()).toMatchObject({ evaluated: 4, changed: 0, totals: { before: simulator.result().totals.after } });
    }
  });

  it('independent: re-decides each request on the counters it was recorded with', () => {
    const recorded = policy([{ kind: 'spend_window', max_cents: 1000, window_seconds: 60 }]);
    const records = history(recorded, [spend(0, 400), spend(10, 400), spend(20, 100)], 10_000);
    const draft = policy([{ kind: 'spend_window', max_cents: 500, window_seconds: 60, rule_name: 'tighter' }]);
    // The second is refused; the third still sees the 800 recorded before it.
    expect(rules(simulate(draft, 'independent', records).changes)).toEqual(['=', 'denied:tighter', 'denied:tighter']);
  });

  it('sequential: what the draft refuses stops counting, so later requests see more room', () => {
    const recorded = policy([{ kind: 'spend_window', max_cents: 1000, window_seconds: 60 }]);
    const records = history(recorded, [spend(0, 400), spend(10, 400), spend(20, 100)], 10_000);
    const draft = policy([{ kind: 'spend_window', max_cents: 500, window_seconds: 60, rule_name: 'tighter' }]);
    expect(rules(simulate(draft, 'sequential', records).changes)).toEqual(['=', 'denied:tighter', '=']);
  });

  it('sequential: what the draft newly lets through counts and reserves, so later requests see less room', () => {
    const recorded = policy([{ kind: 'cost_cap', max_cents: 100 }]);
    const records = history(recorded, [spend(0, 500), spend(10, 600)], 1000);
    expect(records.map((r) => r.rule)).toEqual(['cost_cap', 'cost_cap']);
    const { changes, simulator } = simulate(policy([{ kind: 'cost_cap', max_cents: 1000 }]), 'sequential', records);
    expect(rules(changes)).toEqual(['allowed:null', 'denied:session_budget']);
    expect(changes[1]?.replayed.headroom.session_remaining_cents).toBe(500);
    expect(simulator.result()).toMatchObject({
      evaluated: 2,
      changed: 2,
      totals: { before: { denied: 2, allowed: 0 }, after: { allowed: 1, denied: 1 } },
      amounts: { USD: { before: { denied: 1100 }, after: { allowed: 500, denied: 600 } } },
      top_rules: [{ rule: 'session_budget', count: 1 }],
    });
  });

  it('sequential: a spend token is spent by the first request the draft lets through', () => {
    const token: TokenCounters = { id: 'tok_1', status: 'issued', amount_ceiling_cents: 1000, counterparty: null };
    const recorded = policy([{ kind: 'cost_cap', max_cents: 100 }]);
    const records = history(recorded, [{ ...spend(0, 500), token }, { ...spend(10, 50), token }], 10_000);
    expect(records.map((r) => r.outcome)).toEqual(['denied', 'allowed']);
    const loosened = simulate(policy([{ kind: 'cost_cap', max_cents: 1000 }]), 'sequential', records).changes;
    expect(rules(loosened)).toEqual(['allowed:null', 'denied:spend_token_unusable']);
  });

  it('sequential: a reservation the draft removed comes back when the history released it anyway', () => {
    const recorded = policy([{ kind: 'cost_cap', max_cents: 1000 }]);
    const records = history(recorded, [spend(0, 700), spend(10, 500), spend(20, 600)], 1000);
    // A person rejected the first at +15 s, so the third found the budget empty and was allowed.
    records[0].released_at = T0 + 15_000;
    const inputs = records[2].inputs as NonNullable<HistoryRecord['inputs']>;
    records[2] = { ...records[2], outcome: 'allowed', rule: null, remedy_json: 'null', inputs: { ...inputs, budget: { ...inputs.budget, reserved_cents: 0 } } };
    expect(records.map((r) => r.outcome)).toEqual(['allowed', 'denied', 'allowed']);

    // The draft refuses the first, so the second fits and still holds 500 when the third comes.
    const { changes } = simulate(policy([{ kind: 'cost_cap', max_cents: 600 }]), 'sequential', records);
    expect(rules(changes)).toEqual(['denied:cost_cap', 'allowed:null', 'denied:session_budget']);
    expect(changes[2]?.replayed.headroom.session_remaining_cents).toBe(500);
    // A draft holding the first keeps it until the same release.
    const { changes: held } = simulate(policy([{ kind: 'approval_threshold', above_cents: 0, rule_name: 'hold_all' }]), 'sequential', records);
    expect(rules(held)).toEqual(['requires_approval:hold_all', '=', 'requires_approval:hold_all']);
  });

  it('only fills the windows with history before `from`, and starts that history early enough', () => {
    const draft = policy([{ kind: 'spend_window', max_cents: 500, window_seconds: 120 }]);
    expect(BacktestSimulator.warmUpFrom(draft, T0)).toBe(T0 - 120_000);
    expect(BacktestSimulator.warmUpFrom(policy([]), T0)).toBe(T0);
    const records = history(policy([]), [spend(0, 400), spend(60, 200)], 10_000, 1);
    const { changes, simulator } = simulate(draft, 'independent', records);
    expect(changes[0]).toBeNull();
    expect(rules(changes)).toEqual(['=', 'denied:spend_window']);
    expect(simulator.result().evaluated).toBe(1);
  });

  it('keeps a token refusal recorded without its counters, and reads such a record’s budget from its headroom', () => {
    const records = history(policy([{ kind: 'cost_cap', max_cents: 1000 }]), [spend(0, 300), spend(10, 300)], 10_000).map((r) => ({ ...r, inputs: null }));
    records[0] = { ...records[0], outcome: 'denied', rule: 'spend_token_unusable', spend_token_id: 'tok_1', remedy_json: '{"kind":"new_spend_token"}' };
    records[1] = { ...records[1], session_remaining_cents: 200 };
    const { changes } = simulate(policy([{ kind: 'cost_cap', max_cents: 5000 }]), 'independent', records);
    expect(rules(changes)).toEqual(['=', 'denied:session_budget']);
  });
});

// ---- Properties -------------------------------------------------------------------------------

const ACTIONS = ['payment.create', 'payment.refund', 'email.send'];
const SCOPES = [[], ['payment.*'], ['email.send']];

const ruleArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ kind: fc.constant('cost_cap'), max_cents: fc.nat(300), action_types: fc.constantFrom(...SCOPES) }),
  fc.record({ kind: fc.constant('spend_window'), max_cents: fc.oneof(fc.constant(0), fc.nat(800)), window_seconds: fc.constantFrom(30, 60), action_types: fc.constantFrom(...SCOPES) }),
  fc.record({ kind: fc.constant('monthly_spend_cap'), max_cents: fc.nat(2000), action_types: fc.constantFrom(...SCOPES) }),
  fc.record({ kind: fc.constant('rate_limit'), max_actions: fc.integer({ min: 1, max: 4 }), window_seconds: fc.constantFrom(30, 60), action_types: fc.constantFrom(...SCOPES) }),
  fc.record({ kind: fc.constant('approval_threshold'), above_cents: fc.nat(300) }),
);
const policyArb = fc.array(ruleArb, { maxLength: 4 }).map(policy);

const scenarioArb = fc.record({
  recorded: policyArb,
  draft: policyArb,
  requests: fc
    .array(fc.record({ gap: fc.nat(40), action_type: fc.constantFrom(...ACTIONS), cost: fc.nat(300) }), { minLength: 1, maxLength: 25 })
    .map((rs) => {
      let at = 0;
      return rs.map((r) => ({ at: (at += r.gap), action_type: r.action_type, cost: r.cost }));
    }),
  budget: fc.nat(3000),
  warmUp: fc.nat(3),
});

/** The verdict a change reports, or the recorded decision's outcome, rule and remedy when none is reported. */
function expectSame(change: BacktestChange | null, record: HistoryRecord, expected: DecisionVerdict): void {
  if (change) return expect(change.replayed).toEqual(expected);
  expect({ outcome: expected.outcome, rule: expected.rule, remedy: expected.remedy }).toEqual({ outcome: record.outcome, rule: record.rule, remedy: JSON.parse(record.remedy_json as string) });
}

describe('BacktestSimulator: properties', () => {
  it('sequential: equals the engine deciding the same requests live under the draft', () => {
    fc.assert(
      fc.property(scenarioArb, ({ recorded, draft, requests, budget, warmUp }) => {
        const records = history(recorded, requests, budget, warmUp);
        const underDraft = live(draft, requests, budget, (i) => (i < warmUp ? records[i].outcome : null));
        const { changes, simulator } = simulate(draft, 'sequential', records);
        records.forEach((record, i) => {
          if (!record.evaluated) return expect(changes[i]).toBeNull();
          expectSame(changes[i], record, underDraft[i].verdict);
        });
        const evaluated = underDraft.filter((_, i) => i >= warmUp);
        expect(simulator.result().evaluated).toBe(evaluated.length);
        for (const outcome of ['allowed', 'requires_approval', 'denied'] as const) {
          expect(simulator.result().totals.after[outcome]).toBe(evaluated.filter((d) => d.verdict.outcome === outcome).length);
        }
      }),
      { seed: 16, numRuns: 1000 },
    );
  });

  it('independent: equals the engine on each request’s recorded counters, windows measured over the recorded history', () => {
    fc.assert(
      fc.property(scenarioArb, ({ recorded, draft, requests, budget, warmUp }) => {
        const records = history(recorded, requests, budget, warmUp);
        const asRecorded = live(recorded, requests, budget);
        const { changes } = simulate(draft, 'independent', records);
        records.forEach((record, i) => {
          if (!record.evaluated) return;
          const counted = i === 0 ? [] : asRecorded[i - 1].counted;
          const counters = { ...(record.inputs as DecisionCounters), windows: recordedWindows(draft.compiled.windows, measure(draft.compiled.windows, counted, record.at), record.at) };
          expectSame(changes[i], record, decideVerdict(draft, frameOf(record), counters));
        });
      }),
      { seed: 16, numRuns: 1000 },
    );
  });
});
