import fc from 'fast-check';
import { actionTypeLikePatterns, actionTypeMatcher, matchesActionType } from './action-types';

/** The patterns read straight from their wording: exact, `*`, or a namespace that needs its dot. */
function covers(patterns: string[], actionType: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => p === '*' || p === actionType || (p.endsWith('.*') && actionType.startsWith(p.slice(0, -1))));
}

/** SQL LIKE with `\` as its escape character, as Postgres reads the window patterns (the e2e agreement spec asks Postgres itself). */
function like(pattern: string, text: string): boolean {
  const literal = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') source += literal(pattern[++i]);
    else if (c === '%') source += '.*';
    else if (c === '_') source += '.';
    else source += literal(c);
  }
  return new RegExp(`^${source}$`, 's').test(text);
}

const segment = fc.constantFrom('pay', 'pay_out', 'payxout', 'payment', 'payments', 'create', 'a_b', 'axb', 'x');
const actionTypeArb = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
const patternsArb = fc.array(fc.oneof(actionTypeArb, actionTypeArb.map((t) => `${t}.*`), fc.constant('*')), { maxLength: 3 });

describe('actionTypeMatcher', () => {
  it.each([
    [[], 'payment.create', true],
    [['*'], 'anything', true],
    [['payment.create'], 'payment.create', true],
    [['payment.create'], 'payment.refund', false],
    [['payment.*'], 'payment.refund', true],
    [['payment.*'], 'payment.refund.partial', true],
    [['payment.*'], 'payments.refund', false],
    [['payment.*'], 'payment', false],
    [['pay_out'], 'payxout', false],
    [['email.send', 'payment.*'], 'payment.create', true],
  ])('%j matches %s: %s', (patterns, actionType, matched) => {
    expect(actionTypeMatcher(patterns)(actionType)).toBe(matched);
    expect(matchesActionType(patterns, actionType)).toBe(matched);
  });

  it('agrees with a direct reading of the patterns on generated patterns and types', () => {
    fc.assert(
      fc.property(patternsArb, actionTypeArb, (patterns, type) => expect(actionTypeMatcher(patterns)(type)).toBe(covers(patterns, type))),
      { seed: 16, numRuns: 2000 },
    );
  });
});

describe('actionTypeLikePatterns', () => {
  it('escapes LIKE wildcards, turns a namespace into a prefix and drops the filter when every type matches', () => {
    expect(actionTypeLikePatterns(['pay_out', 'payment.*'])).toEqual(['pay\\_out', 'payment.%']);
    expect(actionTypeLikePatterns(['a%b\\c'])).toEqual(['a\\%b\\\\c']);
    expect(actionTypeLikePatterns([])).toBeNull();
    expect(actionTypeLikePatterns(['payment.*', '*'])).toBeNull();
  });

  it('selects exactly the types the matcher matches', () => {
    fc.assert(
      fc.property(patternsArb, actionTypeArb, (patterns, type) => {
        const likes = actionTypeLikePatterns(patterns);
        expect(likes === null || likes.some((p) => like(p, type))).toBe(actionTypeMatcher(patterns)(type));
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});
