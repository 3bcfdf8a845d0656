import fc from 'fast-check';
import { compileCondition, ConditionOperator, ConditionSubject, normalizeCondition } from './policy-conditions';

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'a'];

function subject(metadata: Record<string, unknown>): ConditionSubject {
  return {
    action_type: 'payment',
    resource: null,
    cost_cents: 100,
    currency: 'USD',
    agent_id: 'agt_1',
    agent_mode: 'live',
    budget_id: 'bud_1',
    metadata,
  };
}

/** The value the path reaches through own properties of plain (non-array) objects, or undefined. */
function ownValue(metadata: unknown, segments: string[]): unknown {
  let node = metadata;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function evaluate(field: string, operator: ConditionOperator, value: unknown, metadata: Record<string, unknown>): boolean {
  const condition = normalizeCondition(value === undefined ? { field, operator } : { field, operator, value }, 'condition');
  return compileCondition(condition)(subject(metadata));
}

describe('policy conditions over metadata paths', () => {
  it('does not find inherited members such as metadata.constructor', () => {
    expect(evaluate('metadata.constructor', 'exists', undefined, {})).toBe(false);
    expect(evaluate('metadata.toString', 'exists', true, { a: 1 })).toBe(false);
    expect(evaluate('metadata.a.__proto__', 'exists', undefined, { a: {} })).toBe(false);
    expect(evaluate('metadata.constructor', 'exists', false, {})).toBe(true);
    expect(evaluate('metadata.constructor', 'eq', 'x', JSON.parse('{"constructor":"x"}'))).toBe(true);
    expect(evaluate('metadata.__proto__', 'eq', 1, JSON.parse('{"__proto__":1}'))).toBe(true);
  });

  it('treats a hostile path as present only when the metadata really has those own keys, never throws or pollutes', () => {
    const segment = fc.constantFrom(...HOSTILE);
    // Metadata as it arrives from JSON: own keys may be named __proto__ and friends.
    const metadata = fc
      .dictionary(segment, fc.oneof(fc.integer(), fc.string(), fc.dictionary(segment, fc.oneof(fc.integer(), fc.constant(null)), { maxKeys: 3 })), { maxKeys: 4 })
      .map((m) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), metadata, (segments, meta) => {
        const field = `metadata.${segments.join('.')}`;
        const expected = ownValue(meta, segments);
        const present = expected !== undefined && expected !== null;
        expect(evaluate(field, 'exists', undefined, meta)).toBe(present);
        expect(evaluate(field, 'exists', false, meta)).toBe(!present);
        expect(evaluate(field, 'ne', '\u0000', meta)).toBe(present);
        expect(evaluate(field, 'starts_with', '', meta)).toBe(typeof expected === 'string');
        expect(evaluate(field, 'contains', 'function', meta)).toBe(typeof expected === 'string' && expected.includes('function'));
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_KEYS);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
