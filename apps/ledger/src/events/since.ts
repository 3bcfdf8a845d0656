const RELATIVE = /^(\d{1,9})([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
// An ISO 8601 date or date-time; Date.parse alone would also take forms like "March 7".
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A `since` filter: an ISO 8601 instant or a relative `<n>{s|m|h|d}` before `now`. Anything else is
 * ignored (undefined), as the reference's clients expect.
 */
export function parseSince(value: unknown, now = new Date()): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  if (!ISO.test(text)) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
