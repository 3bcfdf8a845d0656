/** Every ledger and client is bound to one mode; test and live data never mix. */
export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

/**
 * Who a query runs for. Repositories take it on every method so no query can forget the tenant or
 * the mode.
 */
export interface TenantScope {
  organizationId: string;
  mode: Mode;
}

/** A tenant scope narrowed to the one ledger a request works on. */
export type LedgerScope = TenantScope & { ledgerId: string };
