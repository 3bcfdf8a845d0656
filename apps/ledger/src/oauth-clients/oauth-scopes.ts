/** Scopes a client can be granted; none implies another. */
export const CLIENT_SCOPES = [
  'ledger:read',
  'ledger:write',
  'ledger:period_close',
  'ledger:clients:read',
  'ledger:clients:write',
] as const;
export type ClientScope = (typeof CLIENT_SCOPES)[number];

export function isClientScope(value: string): value is ClientScope {
  return (CLIENT_SCOPES as readonly string[]).includes(value);
}

/**
 * The reference's client-management API names scopes without the `ledger:` prefix (`read`,
 * `clients:write`); both spellings are accepted on input and stored in the full form tokens carry.
 */
export function fullScopeName(value: unknown): unknown {
  if (typeof value !== 'string' || value.startsWith('ledger:')) return value;
  const full = `ledger:${value}`;
  return isClientScope(full) ? full : value;
}
