import type { Granularity } from './dto/spending-query.dto';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * How a range [from, to) splits over the rollups: whole days (day granularity only) from the day
 * rows, the whole hours around them from the hour rows, and the partial hours at either edge from
 * the intents themselves. from <= hourFrom <= dayFrom <= dayTo <= hourTo <= to; an empty tier has
 * equal bounds. UTC days and hours are whole multiples of their length since the epoch.
 */
export interface Segments {
  hourFrom: Date;
  dayFrom: Date;
  dayTo: Date;
  hourTo: Date;
}

export function segmentsOf(from: Date, to: Date, granularity: Granularity): Segments {
  const ceil = (t: number, unit: number) => Math.ceil(t / unit) * unit;
  const floor = (t: number, unit: number) => Math.floor(t / unit) * unit;
  let hourFrom = ceil(from.getTime(), HOUR_MS);
  let hourTo = floor(to.getTime(), HOUR_MS);
  if (hourFrom >= hourTo) hourFrom = hourTo = to.getTime();
  let dayFrom = ceil(hourFrom, DAY_MS);
  let dayTo = floor(hourTo, DAY_MS);
  if (granularity === 'hour' || dayFrom >= dayTo) dayFrom = dayTo = hourTo;
  return { hourFrom: new Date(hourFrom), dayFrom: new Date(dayFrom), dayTo: new Date(dayTo), hourTo: new Date(hourTo) };
}
