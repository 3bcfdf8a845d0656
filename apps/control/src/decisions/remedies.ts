/** What the caller (or a person) can do about a denial or hold; null for a free-form condition. */
export type RemedyKind =
  | 'lower_amount'
  | 'wait'
  | 'use_pinned_counterparty'
  | 'approve'
  | 'raise_budget'
  | 'reopen_budget'
  | 'create_policy'
  | 'new_spend_token'
  | 'allow_resource'
  | 'allow_action'
  | 'grant_scope';

export interface Remedy {
  kind: RemedyKind;
  summary: string;
  max_cents: number | null;
  retry_after_seconds: number | null;
  resource: string | null;
  action_type: string | null;
}

export function remedy(kind: RemedyKind, summary: string, fields: Partial<Omit<Remedy, 'kind' | 'summary'>> = {}): Remedy {
  return { kind, summary, max_cents: null, retry_after_seconds: null, resource: null, action_type: null, ...fields };
}

/** `$1,234.56` for dollars, `1,234.56 EUR` otherwise: summaries are for people. */
export function formatCents(cents: number, currency: string): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const amount = `${units}.${String(abs % 100).padStart(2, '0')}`;
  return currency === 'USD' ? `${sign}$${amount}` : `${sign}${amount} ${currency}`;
}

/** The largest amount that still passes. */
export function lowerTo(max: number, currency: string, what: string): Remedy {
  return remedy('lower_amount', `Lower the amount to ${formatCents(max, currency)} or less to stay within the ${what}`, { max_cents: max });
}

/** The largest amount that still passes, or a wait when nothing would. */
export function lowerOrWait(remaining: number, currency: string, retryAfter: number | null, what: string): Remedy {
  if (remaining > 0) return lowerTo(remaining, currency, what);
  const when = retryAfter === null ? 'when the calendar month turns' : `in ${retryAfter} seconds`;
  return remedy('wait', `The ${what} is used up; retry ${when}`, { retry_after_seconds: retryAfter });
}
