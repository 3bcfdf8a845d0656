import { canonicalJson } from '@bursar/crypto';
import { PoliciesRepository } from './policies.repository';
import { PolicySnapshot } from './policy-compiler';
import { PolicyEngine } from './policy-engine.service';
import { normalizeRules } from './policy-rules';

const snapshot = (max: number): PolicySnapshot => ({
  id: '3f0c1a52-0000-4000-8000-000000000001',
  mode: 'blocklist',
  imports: [],
  imported_rules: [],
  rules: normalizeRules([{ kind: 'cost_cap', max_cents: max, id: '3f0c1a52-0000-4000-8000-000000000002' }]),
});

describe('PolicyEngine', () => {
  const engine = new PolicyEngine({} as PoliciesRepository);

  it('compiles a policy version once and reuses the closures', () => {
    const first = engine.prepare([snapshot(100)]);
    const again = engine.prepare([snapshot(100)]);
    const changed = engine.prepare([snapshot(101)]);
    expect(again.version).toBe(first.version);
    expect(again.compiled).toBe(first.compiled);
    expect(changed.version).not.toBe(first.version);
    expect(changed.compiled).not.toBe(first.compiled);
  });

  it('versions no policy as pv_none', () => {
    expect(engine.prepare([]).version).toBe('pv_none');
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: undefined } })).toBe('{"a":{"d":[1,{"e":3,"f":2}]},"b":1}');
  });
});
