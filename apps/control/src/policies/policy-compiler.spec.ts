import fc from 'fast-check';
import { compileCondition, ConditionSubject } from './policy-conditions';
import { compilePolicies, EvaluationInput, PolicySnapshot, Verdict, WindowUsage } from './policy-compiler';
import { normalizeRules, PolicyRule } from './policy-rules';

const NOW = Date.UTC(2026, 2, 15, 12, 0, 0);

function subject(more: Partial<ConditionSubject> = {}): ConditionSubject {
  return {
    action_type: 'payment.create',
    resource: 'acme',
    cost_cents: 100,
    currency: 'USD',
    agent_id: 'agt_1',
    agent_mode: 'live',
    budget_id: 'bud_1',
    metadata: {},
    ...more,
  };
}

const usage = (spent_cents = 0, count = 0, oldest_at: number | null = null): WindowUsage => ({ spent_cents, count, oldest_at });

function policy(rules: unknown[], more: Partial<PolicySnapshot> = {}): PolicySnapshot {
  return { id: 'pol_1', mode: 'blocklist', imports: [], imported_rules: [], rules: normalizeRules(rules), ...more };
}

function evaluate(snapshots: PolicySnapshot[], more: Partial<ConditionSubject> = {}, windows: WindowUsage[] = []): Verdict {
  return compilePolicies(snapshots).evaluate({ subject: subject(more), usage: windows, now: NOW });
}

describe('compilePolicies: one rule of each kind', () => {
  it.each([
    ['cost_cap at the cap', { kind: 'cost_cap', max_cents: 100 }, 100, [], 'allowed', null],
    ['cost_cap one cent over', { kind: 'cost_cap', max_cents: 100 }, 101, [], 'denied', 'cost_cap'],
    ['spend_window filled exactly', { kind: 'spend_window', max_cents: 500, window_seconds: 60 }, 100, [usage(400, 3)], 'allowed', null],
    ['spend_window one cent past', { kind: 'spend_window', max_cents: 500, window_seconds: 60 }, 101, [usage(400, 3)], 'denied', 'spend_window'],
    ['spend_window already over, zero cost', { kind: 'spend_window', max_cents: 500, window_seconds: 60 }, 0, [usage(900, 9)], 'allowed', null],
    ['monthly_spend_cap filled exactly', { kind: 'monthly_spend_cap', max_cents: 500 }, 500, [usage(0, 0)], 'allowed', null],
    ['monthly_spend_cap one cent past', { kind: 'monthly_spend_cap', max_cents: 500 }, 1, [usage(500, 2)], 'denied', 'monthly_spend_cap'],
    ['rate_limit below its count', { kind: 'rate_limit', max_actions: 3, window_seconds: 60 }, 100, [usage(0, 2)], 'allowed', null],
    ['rate_limit at its count, zero cost too', { kind: 'rate_limit', max_actions: 3, window_seconds: 60 }, 0, [usage(0, 3)], 'denied', 'rate_limit'],
    ['approval_threshold at the threshold', { kind: 'approval_threshold', above_cents: 100 }, 100, [], 'allowed', null],
    ['approval_threshold above it', { kind: 'approval_threshold', above_cents: 100 }, 101, [], 'requires_approval', 'approval_threshold'],
    ['action_allowlist by namespace', { kind: 'action_allowlist', allow: ['payment.*'] }, 100, [], 'allowed', null],
    ['action_allowlist missing the type', { kind: 'action_allowlist', allow: ['email.send'] }, 100, [], 'denied', 'action_allowlist'],
    ['action_allowlist empty is a no-op', { kind: 'action_allowlist', allow: [] }, 100, [], 'allowed', null],
    ['resource_allowlist listing it', { kind: 'resource_allowlist', allow: ['acme'] }, 100, [], 'allowed', null],
    ['resource_allowlist missing it', { kind: 'resource_allowlist', allow: ['globex'] }, 100, [], 'denied', 'resource_allowlist'],
    ['resource_allowlist empty is a no-op', { kind: 'resource_allowlist', allow: [] }, 100, [], 'allowed', null],
    ['condition deny', { kind: 'condition', when: { field: 'cost_cents', operator: 'gt', value: 50 } }, 100, [], 'denied', 'condition'],
    ['condition not met', { kind: 'condition', when: { field: 'cost_cents', operator: 'gt', value: 500 } }, 100, [], 'allowed', null],
    ['condition hold', { kind: 'condition', effect: 'require_approval', when: { field: 'resource', operator: 'eq', value: 'acme' } }, 100, [], 'requires_approval', 'condition'],
    ['condition allow', { kind: 'condition', effect: 'allow', when: { field: 'resource', operator: 'eq', value: 'acme' } }, 100, [], 'allowed', null],
  ])('%s', (_name, rule, cost, windows, outcome, ruleName) => {
    const verdict = evaluate([policy([rule])], { cost_cents: cost as number }, windows as WindowUsage[]);
    expect([verdict.outcome, verdict.rule]).toEqual([outcome, ruleName]);
  });

  it('denies a missing resource under a resource allowlist, naming it in the remedy', () => {
    const verdict = evaluate([policy([{ kind: 'resource_allowlist', allow: ['acme'], rule_name: 'payees' }])], { resource: null });
    expect(verdict).toMatchObject({ outcome: 'denied', rule: 'payees', detail: { resource: null, allowed: ['acme'] } });
    expect(verdict.remedy).toMatchObject({ kind: 'allow_resource', resource: null });
  });

  it('reports amount ceilings as limit_cents and the approval threshold as threshold_cents, with remedies a caller can act on', () => {
    const cap = evaluate([policy([{ kind: 'cost_cap', max_cents: 250, rule_name: 'per_transaction_cap' }])], { cost_cents: 300 });
    expect(cap).toMatchObject({ rule: 'per_transaction_cap', detail: { limit_cents: 250, requested_cents: 300 } });
    expect(cap.remedy).toMatchObject({ kind: 'lower_amount', max_cents: 250 });

    // Waiting never lifts a per-action cap, even one of 0.
    expect(evaluate([policy([{ kind: 'cost_cap', max_cents: 0 }])], { cost_cents: 1 }).remedy).toMatchObject({ kind: 'lower_amount', max_cents: 0, retry_after_seconds: null });

    const held = evaluate([policy([{ kind: 'approval_threshold', above_cents: 99 }])], { cost_cents: 100 });
    expect(held).toMatchObject({ detail: { threshold_cents: 99, requested_cents: 100 } });
    expect(held.remedy).toMatchObject({ kind: 'approve', max_cents: 99 });
  });

  it('tells a full spend window to wait until its oldest counted spend leaves it', () => {
    const oldest = NOW - 45_000;
    const verdict = evaluate([policy([{ kind: 'spend_window', max_cents: 500, window_seconds: 60 }])], { cost_cents: 1 }, [usage(500, 2, oldest)]);
    expect(verdict.detail).toEqual({ limit_cents: 500, window_seconds: 60, spent_cents: 500, requested_cents: 1 });
    expect(verdict.remedy).toMatchObject({ kind: 'wait', retry_after_seconds: 15, max_cents: null });
    expect(verdict.headroom).toEqual({ velocity_remaining_cents: 0 });

    const partly = evaluate([policy([{ kind: 'spend_window', max_cents: 500, window_seconds: 60 }])], { cost_cents: 200 }, [usage(400, 2, oldest)]);
    expect(partly.remedy).toMatchObject({ kind: 'lower_amount', max_cents: 100 });
  });

  it('tells a rate limit to wait for its oldest counted action, the whole window when it knows none', () => {
    const rule = { kind: 'rate_limit', max_actions: 2, window_seconds: 30 };
    expect(evaluate([policy([rule])], {}, [usage(0, 2, NOW - 29_500)]).remedy).toMatchObject({ kind: 'wait', retry_after_seconds: 1 });
    expect(evaluate([policy([rule])], {}, [usage(0, 2, null)]).remedy).toMatchObject({ kind: 'wait', retry_after_seconds: 30 });
    expect(evaluate([policy([rule])], {}, [usage(0, 1, null)]).headroom).toEqual({ rate_remaining_actions: 1 });
  });

  it('applies a rule only to the action types it names; action_allowlist ignores action_types', () => {
    const rules = [{ kind: 'cost_cap', max_cents: 10, action_types: ['email.*'] }];
    expect(evaluate([policy(rules)], { cost_cents: 100 }).outcome).toBe('allowed');
    expect(evaluate([policy(rules)], { cost_cents: 100, action_type: 'email.send' }).outcome).toBe('denied');
    expect(evaluate([policy(rules)], { cost_cents: 100, action_type: 'emails' }).outcome).toBe('allowed');
  });
});

describe('compilePolicies: evaluation order', () => {
  const cap = (max: number, rule_name: string) => ({ kind: 'cost_cap', max_cents: max, rule_name });
  const hold = (above: number, rule_name: string) => ({ kind: 'approval_threshold', above_cents: above, rule_name });

  it('lets the first deny win, module rules before the policy’s own', () => {
    const snapshot = { ...policy([cap(50, 'own')]), imported_rules: normalizeRules([cap(10, 'imported')]) };
    expect(evaluate([snapshot]).rule).toBe('imported');
  });

  it('applies a hold only when nothing denies, later policies included', () => {
    expect(evaluate([policy([hold(10, 'first_hold'), hold(20, 'second_hold')])])).toMatchObject({ outcome: 'requires_approval', rule: 'first_hold' });
    expect(evaluate([policy([hold(10, 'held')]), { ...policy([cap(50, 'later_cap')]), id: 'pol_2' }])).toMatchObject({ outcome: 'denied', rule: 'later_cap' });
  });

  it('never lets an allow override a deny, before or after it', () => {
    const allow = { kind: 'condition', effect: 'allow', when: { field: 'cost_cents', operator: 'gte', value: 0 } };
    expect(evaluate([policy([allow, cap(50, 'cap')])]).rule).toBe('cap');
    expect(evaluate([policy([cap(50, 'cap'), allow])]).rule).toBe('cap');
  });

  it('makes each allowlist policy a gate of its own that some allow must open', () => {
    const opens = { kind: 'resource_allowlist', allow: ['acme'] };
    const allowlist = (id: string, rules: unknown[]) => ({ ...policy(rules), id, mode: 'allowlist' as const });
    expect(evaluate([allowlist('pol_a', [opens])]).outcome).toBe('allowed');
    const shut = evaluate([allowlist('pol_a', [opens]), allowlist('pol_b', [cap(500, 'cap')])]);
    expect(shut).toMatchObject({ outcome: 'denied', rule: 'not_allowlisted', detail: { policy_id: 'pol_b', action_type: 'payment.create', resource: 'acme' } });
    // A hold does not open the gate.
    expect(evaluate([allowlist('pol_a', [hold(10, 'held')])]).rule).toBe('not_allowlisted');
    expect(evaluate([allowlist('pol_a', [])]).rule).toBe('not_allowlisted');
  });

  it('keeps the tightest headroom of every rule it ran, and none of the rules after a deny', () => {
    const verdict = evaluate([policy([cap(500, 'wide'), cap(300, 'tight'), cap(50, 'deny'), cap(10, 'unread')])]);
    expect(verdict).toMatchObject({ rule: 'deny', headroom: { per_action_cap_cents: 50 } });
    expect(evaluate([policy([cap(500, 'wide'), cap(300, 'tight')])]).headroom).toEqual({ per_action_cap_cents: 300 });
  });
});

describe('compilePolicies: windows to measure', () => {
  it('lists one window per windowed rule in rule order, modules first, with its start and its LIKE patterns', () => {
    const snapshot: PolicySnapshot = {
      ...policy([
        { kind: 'monthly_spend_cap', max_cents: 900 },
        { kind: 'rate_limit', max_actions: 4, window_seconds: 10, action_types: ['pay_out', 'payment.*', '*'] },
      ]),
      imported_rules: normalizeRules([{ kind: 'spend_window', max_cents: 300, window_seconds: 60, action_types: ['pay_out', 'payment.*'] }]),
    };
    const { windows } = compilePolicies([snapshot]);
    expect(windows.map((w) => [w.kind, w.window_seconds, w.cap_cents, w.likePatterns, w.since(NOW)])).toEqual([
      ['velocity', 60, 300, ['pay\\_out', 'payment.%'], NOW - 60_000],
      ['monthly', null, 900, null, Date.UTC(2026, 2, 1)],
      ['rate', 10, null, null, NOW - 10_000],
    ]);
  });
});

// ---- Properties -------------------------------------------------------------------------------

const ACTION_TYPES = ['payment.create', 'payment.refund', 'email.send', 'pay_out', 'payxout', 'search'];
const PATTERN_SETS: string[][] = [[], ['*'], ['payment.*'], ['payment.create'], ['pay_out'], ['email.*', 'search'], ['pay_out', 'payment.*']];
const RESOURCES = [null, 'acme', 'globex'];

const kindArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ kind: fc.constant('cost_cap'), max_cents: fc.nat(600) }),
  fc.record({ kind: fc.constant('spend_window'), max_cents: fc.nat(600), window_seconds: fc.integer({ min: 1, max: 3600 }) }),
  fc.record({ kind: fc.constant('monthly_spend_cap'), max_cents: fc.nat(600) }),
  fc.record({ kind: fc.constant('rate_limit'), max_actions: fc.integer({ min: 1, max: 5 }), window_seconds: fc.integer({ min: 1, max: 3600 }) }),
  fc.record({ kind: fc.constant('approval_threshold'), above_cents: fc.nat(600) }),
  fc.record({ kind: fc.constant('action_allowlist'), allow: fc.constantFrom(...PATTERN_SETS) }),
  fc.record({ kind: fc.constant('resource_allowlist'), allow: fc.subarray(['acme', 'globex']) }),
  fc.record({
    kind: fc.constant('condition'),
    effect: fc.constantFrom('deny', 'allow', 'require_approval'),
    when: fc.oneof(
      fc.record({ field: fc.constant('cost_cents'), operator: fc.constantFrom('gt', 'lte'), value: fc.nat(600) }),
      fc.record({ field: fc.constant('resource'), operator: fc.constant('eq'), value: fc.constantFrom('acme', 'globex') }),
    ),
  }),
);
const ruleArb = kindArb.chain((rule) =>
  rule.kind === 'action_allowlist'
    ? fc.constant(rule)
    : fc.record({ action_types: fc.constantFrom(...PATTERN_SETS), rule_name: fc.constantFrom('r_a', 'r_b', 'r_c') }).map((more) => ({ ...rule, ...more })),
);

const snapshotsArb: fc.Arbitrary<PolicySnapshot[]> = fc
  .array(
    fc.record({
      mode: fc.constantFrom('blocklist' as const, 'allowlist' as const),
      imported: fc.array(ruleArb, { maxLength: 2 }),
      own: fc.array(ruleArb, { maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((policies) =>
    policies.map((p, i) => ({ id: `pol_${i}`, mode: p.mode, imports: [], imported_rules: normalizeRules(p.imported), rules: normalizeRules(p.own) })),
  );

const WINDOWED = new Set(['spend_window', 'monthly_spend_cap', 'rate_limit']);

/** The compiled policies' input for these snapshots: generated usage for each windowed rule. */
const caseArb = snapshotsArb.chain((snapshots) => {
  const windowCount = snapshots.flatMap((s) => [...s.imported_rules, ...s.rules]).filter((r) => WINDOWED.has(r.kind)).length;
  const usageArb = fc.record({ spent_cents: fc.nat(800), count: fc.nat(6), oldest_at: fc.option(fc.integer({ min: NOW - 3_600_000, max: NOW })) });
  return fc.record({
    snapshots: fc.constant(snapshots),
    input: fc.record({
      subject: fc.record({ action_type: fc.constantFrom(...ACTION_TYPES), resource: fc.constantFrom(...RESOURCES), cost_cents: fc.nat(700) }).map((s) => subject(s)),
      usage: fc.array(usageArb, { minLength: windowCount, maxLength: windowCount }),
      now: fc.constant(NOW),
    }),
  });
});

/** `payment.create` against a rule's `action_types`, read straight from the contract's wording. */
function covers(patterns: string[], actionType: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => p === '*' || p === actionType || (p.endsWith('.*') && actionType.split('.').length > 1 && actionType.startsWith(p.slice(0, -1))));
}

/**
 * The decision read directly off the snapshots, one rule at a time, as the contract states it; the
 * usage entries belong to the windowed rules in the order they appear.
 */
function readDirectly(snapshots: PolicySnapshot[], input: EvaluationInput): Pick<Verdict, 'outcome' | 'rule' | 'headroom'> {
  const { subject: s, usage: measured } = input;
  const headroom: Record<string, number> = {};
  const tighten = (key: string, value: number) => (headroom[key] = Math.min(headroom[key] ?? Infinity, value));
  let nextWindow = 0;
  let held: string | null = null;
  for (const snapshot of snapshots) {
    let opened = false;
    for (const rule of [...snapshot.imported_rules, ...snapshot.rules]) {
      const used = WINDOWED.has(rule.kind) ? measured[nextWindow++] : usage();
      if (rule.kind !== 'action_allowlist' && !covers(rule.action_types, s.action_type)) continue;
      const effect = effectOf(rule, s, used, tighten);
      if (effect === 'deny') return { outcome: 'denied', rule: rule.rule_name, headroom };
      if (effect === 'hold') held ??= rule.rule_name;
      if (effect === 'allow') opened = true;
    }
    if (snapshot.mode === 'allowlist' && !opened) return { outcome: 'denied', rule: 'not_allowlisted', headroom };
  }
  return held ? { outcome: 'requires_approval', rule: held, headroom } : { outcome: 'allowed', rule: null, headroom };
}

function effectOf(rule: PolicyRule, s: ConditionSubject, used: WindowUsage, tighten: (key: string, value: number) => void): 'deny' | 'hold' | 'allow' | null {
  const max = rule.max_cents as number;
  switch (rule.kind) {
    case 'cost_cap':
      tighten('per_action_cap_cents', max);
      return s.cost_cents > max ? 'deny' : null;
    case 'spend_window':
    case 'monthly_spend_cap':
      tighten(rule.kind === 'spend_window' ? 'velocity_remaining_cents' : 'monthly_remaining_cents', Math.max(0, max - used.spent_cents));
      return s.cost_cents > 0 && used.spent_cents + s.cost_cents > max ? 'deny' : null;
    case 'rate_limit':
      tighten('rate_remaining_actions', Math.max(0, (rule.max_actions as number) - used.count));
      return used.count >= (rule.max_actions as number) ? 'deny' : null;
    case 'approval_threshold':
      return s.cost_cents > (rule.above_cents as number) ? 'hold' : null;
    case 'action_allowlist': {
      const allow = rule.allow as string[];
      if (allow.length === 0) return null;
      return covers(allow, s.action_type) ? 'allow' : 'deny';
    }
    case 'resource_allowlist': {
      const allow = rule.allow as string[];
      if (allow.length === 0) return null;
      return s.resource !== null && allow.includes(s.resource) ? 'allow' : 'deny';
    }
    case 'condition': {
      if (!compileCondition(rule.when as NonNullable<PolicyRule['when']>)(s)) return null;
      return rule.effect === 'require_approval' ? 'hold' : (rule.effect as 'deny' | 'allow');
    }
  }
}


describe('compilePolicies: properties', () => {
  it('agrees with a direct reading of the rules on generated policies and requests', () => {
    fc.assert(
      fc.property(caseArb, ({ snapshots, input }) => {
        const verdict = compilePolicies(snapshots).evaluate(input);
        expect({ outcome: verdict.outcome, rule: verdict.rule, headroom: verdict.headroom }).toEqual(readDirectly(snapshots, input));
      }),
      { seed: 16, numRuns: 1000 },
    );
  });

  it('is deterministic: a recompiled copy and an already used compilation give the same verdicts', () => {
    fc.assert(
      fc.property(caseArb, caseArb, ({ snapshots, input }, other) => {
        const compiled = compilePolicies(snapshots);
        const first = compiled.evaluate(input);
        // Another request through the same closures must leave nothing behind for the next one.
        compiled.evaluate({ ...other.input, usage: input.usage });
        const copy = compilePolicies(JSON.parse(JSON.stringify(snapshots)) as PolicySnapshot[]);
        expect(compiled.evaluate(input)).toEqual(first);
        expect(copy.evaluate(input)).toEqual(first);
        expect(copy.windows.map((w) => [w.kind, w.window_seconds, w.cap_cents, w.likePatterns, w.since(NOW)])).toEqual(
          compiled.windows.map((w) => [w.kind, w.window_seconds, w.cap_cents, w.likePatterns, w.since(NOW)]),
        );
      }),
      { seed: 16, numRuns: 500 },
    );
  });
});
