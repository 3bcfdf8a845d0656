import type { Granularity } from './dto/spending-query.dto';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * How a range [from, to) splits over the rollups, which hold the decisions before foldedTo: whole
 * days (day granularity only) from the day rows, the whole hours around them from the hour rows,
 * and the rest at either edge (partial hours, and all from foldedTo on) from the intents themselves.
 * from <= hourFrom <= dayFrom <= dayTo <= hourTo <= min(to, max(from, foldedTo)); an empty tier has
 * equal bounds. UTC days and hours are whole multiples of their length since the epoch.
 */
export interface Segments {
  hourFrom: Date;
  dayFrom: Date;
  dayTo: Date;
  hourTo: Date;
}

export function segmentsOf(from: Date, to: Date, granularity: Granularity, foldedTo: Date = to): Segments {
  const end = Math.min(to.getTime(), Math.max(from.getTime(), foldedTo.getTime()));
  const ceil = (t: number, unit: number) => Math.ceil(t / unit) * unit;
  const floor = (t: number, unit: number) => Math.floor(t / unit) * unit;
  let hourFrom = ceil(from.getTime(), HOUR_MS);
  let hourTo = floor(end, HOUR_MS);
  if (hourFrom >= hourTo) hourFrom = hourTo = end;
  let dayFrom = ceil(hourFrom, DAY_MS);
  let dayTo = floor(hourTo, DAY_MS);
  if (granularity === 'hour' || dayFrom >= dayTo) dayFrom = dayTo = hourTo;
  return { hourFrom: new Date(hourFrom), dayFrom: new Date(dayFrom), dayTo: new Date(dayTo), hourTo: new Date(hourTo) };
}
