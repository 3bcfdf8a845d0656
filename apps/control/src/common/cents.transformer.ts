import type { ValueTransformer } from 'typeorm';

/** Reads a bigint cents column (pg returns it as a string) as an exact integer, never a float. */
export function parseCents(value: string): number {
  const cents = BigInt(value);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER) || cents < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new Error(`cents value ${value} is beyond the exact integer range`);
  }
  return Number(cents);
}

export const centsTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : parseCents(value)),
};
