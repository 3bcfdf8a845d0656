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
