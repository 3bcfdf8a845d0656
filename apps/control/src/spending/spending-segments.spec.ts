import fc from 'fast-check';
import { segmentsOf } from './spending-segments';

const at = (iso: string) => new Date(iso);
const iso = (s: Record<string, Date>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.toISOString()]));

describe('segmentsOf', () => {
  it('reads whole days from day rows, the hours around them from hour rows, the edges from intents', () => {
    expect(iso({ ...segmentsOf(at('2026-11-21T11:17:15Z'), at('2026-11-28T11:17:15Z'), 'day') })).toEqual({
      hourFrom: '2026-11-21T12:00:00.000Z',
      dayFrom: '2026-11-22T00:00:00.000Z',
      dayTo: '2026-11-28T00:00:00.000Z',
      hourTo: '2026-11-28T11:00:00.000Z',
    });
  });

  it('uses no day rows for an hourly timeline', () => {
    const s = segmentsOf(at('2026-11-21T11:17:15Z'), at('2026-11-28T11:17:15Z'), 'hour');
    expect(s.dayFrom).toEqual(s.hourTo);
    expect(s.dayTo).toEqual(s.hourTo);
  });

  it('reads a range inside one hour from intents alone', () => {
    const s = segmentsOf(at('2026-11-21T10:20:00Z'), at('2026-11-21T10:50:00Z'), 'day');
    expect(new Set(Object.values(s).map((d) => d.toISOString()))).toEqual(new Set(['2026-11-21T10:50:00.000Z']));
  });

  it('reads from the rollups only what has been folded into them', () => {
    const from = at('2026-11-21T11:17:15Z');
    const to = at('2026-11-28T11:17:15Z');
    expect(iso({ ...segmentsOf(from, to, 'day', at('2026-11-25T07:00:00Z')) })).toEqual({
      hourFrom: '2026-11-21T12:00:00.000Z',
      dayFrom: '2026-11-22T00:00:00.000Z',
      dayTo: '2026-11-25T00:00:00.000Z',
      hourTo: '2026-11-25T07:00:00.000Z',
    });
    const never = segmentsOf(from, to, 'day', new Date(-8.64e15));
    expect(new Set(Object.values(never).map((d) => d.getTime()))).toEqual(new Set([from.getTime()]));
    expect(segmentsOf(from, to, 'hour', at('2026-12-01T00:00:00Z'))).toEqual(segmentsOf(from, to, 'hour'));
  });

  it('orders its bounds inside the range and aligns the rollup tiers, for any range', () => {
    const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
    fc.assert(
      fc.property(instant, fc.integer({ min: 1, max: 40 * 86_400_000 }), fc.constantFrom('hour' as const, 'day' as const), fc.integer({ min: -2 * 86_400_000, max: 42 * 86_400_000 }), (start, length, granularity, folded) => {
        const from = new Date(start);
        const to = new Date(start + length);
        const s = segmentsOf(from, to, granularity, new Date(start + folded));
        const order = [from, s.hourFrom, s.dayFrom, s.dayTo, s.hourTo, new Date(Math.max(start, Math.min(start + length, start + folded))), to].map((d) => d.getTime());
        expect(order).toEqual([...order].sort((a, b) => a - b));
        if (s.hourFrom < s.hourTo) expect([s.hourFrom.getTime() % 3_600_000, s.hourTo.getTime() % 3_600_000]).toEqual([0, 0]);
        if (s.dayFrom < s.dayTo) expect([s.dayFrom.getTime() % 86_400_000, s.dayTo.getTime() % 86_400_000, granularity]).toEqual([0, 0, 'day']);
        // With whole hours in the range, the edges left to intents are each shorter than an hour.
        if (s.hourFrom < s.hourTo) expect(Math.max(s.hourFrom.getTime() - start, Math.min(to.getTime(), start + folded) - s.hourTo.getTime())).toBeLessThan(3_600_000);
      }),
    );
  });
});
