import { LedgerErrors } from '../common/ledger-errors';

export const EXPANDABLE = ['postings.account', 'balances'] as const;
export type Expandable = (typeof EXPANDABLE)[number];

/** The `expand` query parameter: a comma list of EXPANDABLE names; anything else is 422. */
export function parseExpand(raw: string | undefined): Set<Expandable> {
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(EXPANDABLE as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw LedgerErrors.error('invalid_request', {
      message: `Cannot expand ${unknown.join(', ')}; expandable: ${EXPANDABLE.join(', ')}`,
      param: 'expand',
    });
  }
  return new Set(names as Expandable[]);
}
