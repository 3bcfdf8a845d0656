import { COUNTED_STATES, countedOutcomeSql, countedStateSql, outcomeCounts, STATE_OF, stateCounts } from './counted-intents';

describe('counted intents', () => {
  it('count while pending, held, completed or executed; never failed or denied', () => {
    expect(COUNTED_STATES).toEqual(['pending', 'held', 'completed', 'executed']);
    expect(stateCounts('failed')).toBe(false);
    expect(stateCounts('denied')).toBe(false);
  });

  it('an allowed or held decision counts from its creation, a denial never', () => {
    expect(STATE_OF).toEqual({ allowed: 'pending', requires_approval: 'held', denied: 'denied' });
    expect([outcomeCounts('allowed'), outcomeCounts('requires_approval'), outcomeCounts('denied')]).toEqual([true, true, false]);
  });

  it('reads the same in SQL', () => {
    expect(countedStateSql('i.state')).toBe(`i.state IN ('pending', 'held', 'completed', 'executed')`);
    expect(countedOutcomeSql(`d->>'outcome'`)).toBe(`d->>'outcome' IN ('allowed', 'requires_approval')`);
  });
});
