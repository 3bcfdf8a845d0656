/**
 * Money is integer minor units of any size: BigInt in JS, `numeric` in Postgres, decimal strings
 * on the wire. Never a float.
 */
export const DIGITS = /^\d+$/;

/** Longest amount accepted; far beyond any real balance, short enough to bound the work per request. */
export const MAX_AMOUNT_DIGITS = 1000;

export function isMinorUnits(value: unknown, min: bigint): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) && BigInt(value) >= min;
  if (typeof value !== 'string' || value.length > MAX_AMOUNT_DIGITS || !DIGITS.test(value)) return false;
  return BigInt(value) >= min;
}

/** Sums of a map of BigInts kept per key (currency, account). */
export function addTo<K>(map: Map<K, bigint>, key: K, amount: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + amount);
}

export function mapToStrings<K extends string>(map: Map<K, bigint>): Record<string, string> {
  return Object.fromEntries([...map].map(([k, v]) => [k, v.toString()]));
}
