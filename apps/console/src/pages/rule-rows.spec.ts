import { RULE_KINDS } from '@bursar/policy-rules';
import { ApiRule, blankRule, jsonRules, parseRule, rowOf } from './rule-rows';

describe('rule rows', () => {
  it.each<ApiRule>([
    { id: '0b5f3c4e-2f7d-4a53-9a49-3b7c8a6c9d10', kind: 'cost_cap', rule_name: 'small', action_types: ['payment.*'], max_cents: 500 },
    { kind: 'spend_window', max_cents: 50_000, window_seconds: 3600 },
    { kind: 'monthly_spend_cap', max_cents: 0 },
    { kind: 'rate_limit', max_actions: 10, window_seconds: 60 },
    { kind: 'approval_threshold', above_cents: 100 },
    { kind: 'action_allowlist', allow: ['payment.*', 'search'] },
    { kind: 'resource_allowlist', allow: ['vendor.example'] },
    { kind: 'condition', effect: 'require_approval', when: { all_of: [{ field: 'resource', operator: 'ends_with', value: '.ru' }] } },
  ])('reads %j back as it was written', (rule) => {
    expect(parseRule(rowOf(rule))).toEqual({ rule });
  });

  it('leaves the default name (the kind) out, so a changed kind reports under its own name', () => {
    expect(rowOf({ kind: 'cost_cap', rule_name: 'cost_cap', max_cents: 1 }).rule_name).toBe('');
  });

  it('writes only the settings of the row kind', () => {
    const row = { ...rowOf({ kind: 'cost_cap', max_cents: 5 }), kind: 'resource_allowlist' as const, allow: 'a.example, b.example' };
    expect(parseRule(row)).toEqual({ rule: { kind: 'resource_allowlist', allow: ['a.example', 'b.example'] } });
  });

  it('names each field it cannot read', () => {
    expect(parseRule({ ...blankRule('spend_window'), max_cents: '-5', rule_name: 'Bad Name' }).issues).toEqual([
      { field: 'rule_name', message: expect.any(String) },
      { field: 'max_cents', message: 'a whole number of cents' },
      { field: 'window_seconds', message: 'a whole number of at least 1' },
    ]);
    expect(parseRule({ ...blankRule('condition'), when: '{nope' }).issues).toEqual([{ field: 'when', message: expect.stringMatching(/^a condition as JSON/) }]);
  });

  it('has a blank row for every kind', () => {
    for (const kind of RULE_KINDS) expect(blankRule(kind).kind).toBe(kind);
  });
});

describe('jsonRules', () => {
  it('reads an array of rules with known kinds; anything else is one message', () => {
    expect(jsonRules.parse('[{"kind":"cost_cap","max_cents":-5}]')).toEqual([{ kind: 'cost_cap', max_cents: -5 }]);
    expect(jsonRules.parse('')).toEqual([]);
    expect(jsonRules.safeParse('[{').error?.issues[0].message).toMatch(/^not JSON/);
    expect(jsonRules.safeParse('[{"kind":"teleport"}]').error?.issues[0].message).toMatch(/^an array of rules/);
  });
});
