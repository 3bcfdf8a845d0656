import { parseSince } from './since';

describe('parseSince', () => {
  const now = new Date('2026-01-10T12:00:00Z');

  it('reads relative durations back from now', () => {
    expect(parseSince('30m', now)).toEqual(new Date('2026-01-10T11:30:00Z'));
    expect(parseSince('24h', now)).toEqual(new Date('2026-01-09T12:00:00Z'));
    expect(parseSince('7d', now)).toEqual(new Date('2026-01-03T12:00:00Z'));
    expect(parseSince('45s', now)).toEqual(new Date('2026-01-10T11:59:15Z'));
  });

  it('reads ISO 8601 instants', () => {
    expect(parseSince('2026-01-01T00:00:00Z', now)).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(parseSince('2026-01-01T01:00:00+01:00', now)).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('ignores anything else', () => {
    for (const value of ['yesterday', '5w', '', 'March 7', '2026-13-45T00:00:00Z', undefined, ['1h']]) {
      expect(parseSince(value, now)).toBeUndefined();
    }
  });
});
