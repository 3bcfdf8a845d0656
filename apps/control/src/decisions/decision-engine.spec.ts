import fc from 'fast-check';
import { compilePolicies, PolicySnapshot } from '../policies/policy-compiler';
import type { LoadedPolicies } from '../policies/policy-engine.service';
import { normalizeRules } from '../policies/policy-rules';
import { policyVersion } from '../policies/policy-snapshot';
import { EvaluatedAction, frameHash } from './decision';
import { applySettlement, decide, decideVerdict, replayDecision } from './decision-engine';
import { BudgetCounters, DecisionCounters, recordedWindows, TokenCounters } from './decision-inputs';

const NOW = Date.UTC(2026, 2, 15, 12, 0, 0);

/** Built as `loadedPolicies` builds them, without the engine service (and its repository). */
function loaded(snapshots: PolicySnapshot[]): LoadedPolicies {
  return { snapshots, version: policyVersion(snapshots), compiled: compilePolicies(snapshots) };
}

const policy = (rules: unknown[], mode: PolicySnapshot['mode'] = 'blocklist'): LoadedPolicies =>
  loaded([{ id: 'pol_1', mode, imports: [], imported_rules: [], rules: normalizeRules(rules) }]);

const NO_POLICY = loaded([]);
const OPEN_POLICY = policy([{ kind: 'cost_cap', max_cents: 1_000_000 }]);

function action(more: Partial<EvaluatedAction> = {}): EvaluatedAction {
  return {
    workspace_id: 'ws_1',
    agent_id: 'agt_1',
    budget_id: 'bud_1',
    action_type: 'payment.create',
    resource: 'acme',
    cost_cents: 100,
    currency: 'USD',
    metadata: {},
    ...more,
  };
}

const budget = (more: Partial<BudgetCounters> = {}): BudgetCounters => ({ status: 'active', budget_cents: 1000, spent_cents: 0, reserved_cents: 0, ...more });
const token = (more: Partial<TokenCounters> = {}): TokenCounters => ({ id: 'tok_1', status: 'issued', amount_ceiling_cents: 500, counterparty: 'acme', ...more });

function counters(more: Partial<DecisionCounters> = {}): DecisionCounters {
  return { now: NOW, agent: { mode: 'live', scopes: [] }, budget: budget(), windows: [], spend_token: null, ...more };
}

describe('decideVerdict: key scopes', () => {
  it.each([
    [[], true],
    [['payment.*'], true],
    [['payments.*', 'email.send'], false],
  ])('scopes %j cover payment.create: %s (the shared action-type matcher)', (scopes, covered) => {
    const verdict = decideVerdict(OPEN_POLICY, action(), counters({ agent: { mode: 'live', scopes } }));
    expect(verdict.rule === 'runtime_scope').toBe(!covered);
  });
});

describe('decideVerdict: the order of the checks', () => {
  it.each<[string, LoadedPolicies, Partial<EvaluatedAction>, Partial<DecisionCounters>, string | null, string | null]>([
    ['a used token ends evaluation before the budget and the policy', NO_POLICY, {}, { spend_token: token({ status: 'consumed' }), budget: budget({ status: 'closed' }) }, 'spend_token_unusable', 'new_spend_token'],
    ['an expired token', OPEN_POLICY, {}, { spend_token: token({ status: 'expired' }) }, 'spend_token_unusable', 'new_spend_token'],
    ['a token ceiling below the amount', OPEN_POLICY, { cost_cents: 501 }, { spend_token: token() }, 'spend_token_ceiling', 'lower_amount'],
    ['a token pinned to another payee', OPEN_POLICY, { resource: 'globex' }, { spend_token: token() }, 'spend_token_counterparty', 'use_pinned_counterparty'],
    ['a token that passes still leaves the policy to decide', NO_POLICY, {}, { spend_token: token() }, 'no_policy', 'create_policy'],
    ['an amount equal to the token ceiling', OPEN_POLICY, { cost_cents: 500 }, { spend_token: token() }, null, null],
    ['an unpinned token pays anyone', OPEN_POLICY, { resource: 'globex' }, { spend_token: token({ counterparty: null }) }, null, null],
    ['an exhausted budget needs a person to fund one', OPEN_POLICY, {}, { budget: budget({ status: 'exhausted' }) }, 'session_inactive', 'raise_budget'],
    ['a closed budget needs a new one', OPEN_POLICY, {}, { budget: budget({ status: 'closed' }) }, 'session_inactive', 'reopen_budget'],
    ['an inactive budget before the scopes', OPEN_POLICY, {}, { budget: budget({ status: 'closed' }), agent: { mode: 'live', scopes: ['email.*'] } }, 'session_inactive', 'reopen_budget'],
    ['scopes that do not cover the action, before the budget', OPEN_POLICY, { cost_cents: 5000 }, { agent: { mode: 'live', scopes: ['email.*'] } }, 'runtime_scope', 'grant_scope'],
    ['more than the budget has left', OPEN_POLICY, { cost_cents: 1001 }, {}, 'session_budget', 'lower_amount'],
    ['a budget with nothing left', OPEN_POLICY, { cost_cents: 1 }, { budget: budget({ spent_cents: 600, reserved_cents: 400 }) }, 'session_budget', 'raise_budget'],
    ['the budget before no_policy', NO_POLICY, { cost_cents: 1001 }, {}, 'session_budget', 'lower_amount'],
    ['no policy denies everything', NO_POLICY, { cost_cents: 0 }, {}, 'no_policy', 'create_policy'],
    ['the policy last', policy([{ kind: 'cost_cap', max_cents: 99, rule_name: 'per_transaction_cap' }]), {}, {}, 'per_transaction_cap', 'lower_amount'],
    ['an amount equal to what is left', OPEN_POLICY, { cost_cents: 1000 }, {}, null, null],
  ])('%s', (_name, policies, actionMore, countersMore, rule, remedyKind) => {
    const verdict = decideVerdict(policies, action(actionMore), counters(countersMore));
    expect([verdict.outcome === 'denied' ? verdict.rule : null, verdict.remedy?.kind ?? null]).toEqual([rule, remedyKind]);
  });

  it('measures session headroom before the reservation, beside the policy’s own headroom', () => {
    const verdict = decideVerdict(policy([{ kind: 'cost_cap', max_cents: 300 }]), action({ cost_cents: 250 }), counters({ budget: budget({ spent_cents: 100, reserved_cents: 200 }) }));
    expect(verdict).toMatchObject({ outcome: 'allowed', rule: null, detail: {}, remedy: null, headroom: { session_remaining_cents: 700, per_action_cap_cents: 300 } });
  });

  it('gives the policy the agent’s mode and the measured windows', () => {
    const policies = policy([
      { kind: 'condition', when: { field: 'agent_mode', operator: 'eq', value: 'test' }, rule_name: 'no_test_agents' },
      { kind: 'spend_window', max_cents: 500, window_seconds: 60 },
    ]);
    const windows = recordedWindows(policies.compiled.windows, [{ spent_cents: 450, count: 3, oldest_at: NOW - 30_000 }], NOW);
    expect(decideVerdict(policies, action(), counters({ agent: { mode: 'test', scopes: [] }, windows })).rule).toBe('no_test_agents');
    const velocity = decideVerdict(policies, action(), counters({ windows }));
    expect(velocity).toMatchObject({ rule: 'spend_window', headroom: { velocity_remaining_cents: 50, session_remaining_cents: 1000 } });
    expect(velocity.remedy).toMatchObject({ kind: 'lower_amount', max_cents: 50 });
  });

  it('reports the token’s figures in the refusal', () => {
    const verdict = decideVerdict(OPEN_POLICY, action({ cost_cents: 900 }), counters({ spend_token: token() }));
    expect(verdict.detail).toEqual({ spend_token_id: 'tok_1', limit_cents: 500, requested_cents: 900 });
    expect(verdict.remedy).toMatchObject({ max_cents: 500 });
    expect(verdict.headroom).toEqual({ session_remaining_cents: 1000 });
  });
});

describe('decide and its settlement', () => {
  it('stamps the receipt fields: the snapshot, its version and the frame hash', () => {
    const policies = policy([{ kind: 'cost_cap', max_cents: 500 }]);
    const decision = decide(policies, action(), counters());
    expect(decision).toMatchObject({ outcome: 'allowed', policy_snapshot: policies.snapshots, policy_version: policies.version, frame_hash: frameHash(action()) });
    expect(decision.policy_version).toMatch(/^pv_[0-9a-f]{64}$/);
    expect(decide(NO_POLICY, action(), counters()).policy_version).toBe('pv_none');
    expect(decide(policies, action({ metadata: { a: 1 } }), counters()).frame_hash).not.toBe(decision.frame_hash);
  });

  it('keeps the decision when nothing settled, and takes the headroom the reservation saw', () => {
    const decision = decide(OPEN_POLICY, action(), counters());
    expect(applySettlement(decision, action(), counters(), null)).toBe(decision);
    expect(applySettlement(decision, action(), counters(), { reserved_before_cents: 640 }).headroom.session_remaining_cents).toBe(640);
  });

  it('turns a reservation that no longer fitted into the budget’s refusal', () => {
    const decision = decide(OPEN_POLICY, action(), counters());
    const lower = applySettlement(decision, action(), counters(), { refused_budget: budget({ spent_cents: 960 }) });
    expect(lower).toMatchObject({ outcome: 'denied', rule: 'session_budget', detail: { requested_cents: 100, remaining_cents: 40 }, headroom: { session_remaining_cents: 40 } });
    expect(lower.remedy).toMatchObject({ kind: 'lower_amount', max_cents: 40 });
    const closed = applySettlement(decision, action(), counters(), { refused_budget: budget({ status: 'closed' }) });
    expect(closed).toMatchObject({ outcome: 'denied', rule: 'session_inactive', detail: { budget_id: 'bud_1', status: 'closed' } });
  });

  it('records the loser of a token race as spend_token_unusable', () => {
    const withToken = counters({ spend_token: token() });
    const decision = decide(OPEN_POLICY, action(), withToken);
    const lost = applySettlement(decision, action(), withToken, { reserved_before_cents: 1000, lost_token: true });
    expect(lost).toMatchObject({ outcome: 'denied', rule: 'spend_token_unusable', detail: { spend_token_id: 'tok_1', status: 'consumed' } });
    expect(lost.frame_hash).toBe(decision.frame_hash);
  });

  it('replays a recorded decision from its inputs bit for bit', () => {
    const recorded = { ...counters({ spend_token: token() }), settlement: { reserved_before_cents: 900, lost_token: true as const } };
    const original = applySettlement(decide(OPEN_POLICY, action(), recorded), action(), recorded, recorded.settlement);
    expect(replayDecision(OPEN_POLICY, action(), JSON.parse(JSON.stringify(recorded)))).toEqual(original);
  });
});

// ---- Properties -------------------------------------------------------------------------------

/** One agent's limits, as optional typed columns and a rate limit, with what each window has used. */
const limitsArb = fc.record({
  cap: fc.option(fc.nat(2000)),
  velocity: fc.option(fc.record({ cap: fc.nat(2000), spent: fc.nat(2500), seconds: fc.integer({ min: 1, max: 86_400 }) })),
  monthly: fc.option(fc.record({ cap: fc.nat(2000), spent: fc.nat(2500) })),
  rate: fc.option(fc.record({ max: fc.integer({ min: 1, max: 5 }), count: fc.nat(6) })),
  threshold: fc.option(fc.nat(2000)),
  budget: fc.record({ budget_cents: fc.nat(3000), spent_cents: fc.nat(1500), reserved_cents: fc.nat(1500) }),
  token: fc.option(fc.nat(2000)),
  cost: fc.nat(2500),
});
type Limits = typeof limitsArb extends fc.Arbitrary<infer T> ? T : never;

function setUp(l: Limits): { policies: LoadedPolicies; counters: DecisionCounters } {
  const rules: unknown[] = [];
  const usage = [];
  if (l.cap !== null) rules.push({ kind: 'cost_cap', max_cents: l.cap });
  if (l.velocity) {
    rules.push({ kind: 'spend_window', max_cents: l.velocity.cap, window_seconds: l.velocity.seconds });
    usage.push({ spent_cents: l.velocity.spent, count: 1, oldest_at: NOW - 1000 });
  }
  if (l.monthly) {
    rules.push({ kind: 'monthly_spend_cap', max_cents: l.monthly.cap });
    usage.push({ spent_cents: l.monthly.spent, count: 1, oldest_at: NOW - 1000 });
  }
  if (l.rate) {
    rules.push({ kind: 'rate_limit', max_actions: l.rate.max, window_seconds: 60 });
    usage.push({ spent_cents: 0, count: l.rate.count, oldest_at: NOW - 1000 });
  }
  if (l.threshold !== null) rules.push({ kind: 'approval_threshold', above_cents: l.threshold });
  const policies = policy(rules);
  return {
    policies,
    counters: counters({
      budget: budget(l.budget),
      windows: recordedWindows(policies.compiled.windows, usage, NOW),
      spend_token: l.token === null ? null : token({ amount_ceiling_cents: l.token }),
    }),
  };
}

describe('decideVerdict: properties', () => {
  it('lets an amount through exactly when every cap, window, count, token and the budget leave room for it', () => {
    fc.assert(
      fc.property(limitsArb, (l) => {
        const { policies, counters: c } = setUp(l);
        const verdict = decideVerdict(policies, action({ cost_cents: l.cost }), c);
        const remaining = l.budget.budget_cents - l.budget.spent_cents - l.budget.reserved_cents;
        const fits =
          l.cost <= remaining &&
          (l.token === null || l.cost <= l.token) &&
          (l.cap === null || l.cost <= l.cap) &&
          (!l.velocity || l.cost === 0 || l.velocity.spent + l.cost <= l.velocity.cap) &&
          (!l.monthly || l.cost === 0 || l.monthly.spent + l.cost <= l.monthly.cap) &&
          (!l.rate || l.rate.count < l.rate.max);
        expect(verdict.outcome !== 'denied').toBe(fits);
        if (fits) expect(verdict.outcome).toBe(l.threshold !== null && l.cost > l.threshold ? 'requires_approval' : 'allowed');
        // What it lets through never exceeds a figure of headroom in cents.
        if (fits && l.cost > 0) {
          for (const [key, value] of Object.entries(verdict.headroom)) if (key.endsWith('_cents')) expect(l.cost).toBeLessThanOrEqual(value);
        }
      }),
      { seed: 16, numRuns: 3000 },
    );
  });

  it('tells a caller to wait only for a window, and offers a lower amount only when that amount passes the rule that refused', () => {
    fc.assert(
      fc.property(limitsArb, (l) => {
        const { policies, counters: c } = setUp(l);
        const verdict = decideVerdict(policies, action({ cost_cents: l.cost }), c);
        if (verdict.remedy?.kind === 'wait') expect(['spend_window', 'monthly_spend_cap', 'rate_limit']).toContain(verdict.rule);
        if (verdict.remedy?.kind !== 'lower_amount') return;
        const lower = verdict.remedy.max_cents as number;
        expect(lower).toBeLessThan(l.cost);
        const again = decideVerdict(policies, action({ cost_cents: lower }), c);
        expect(again.outcome === 'denied' ? again.rule : null).not.toBe(verdict.rule);
      }),
      { seed: 16, numRuns: 3000 },
    );
  });
});
