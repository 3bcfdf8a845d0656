/** The five accounting types; asset and expense accounts grow on the debit side, the rest on credit. */
export const ACCOUNT_TYPES = ['asset', 'liability', 'revenue', 'expense', 'equity'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const FUND_CLASSIFICATIONS = ['client_held', 'operator', 'neutral'] as const;
export type FundClassification = (typeof FUND_CLASSIFICATIONS)[number];

/** `none`: postings may not take the available balance below minus `overdraft_limit`. */
export const OVERDRAFT_POLICIES = ['allowed', 'none'] as const;
export type OverdraftPolicy = (typeof OVERDRAFT_POLICIES)[number];

export const ACCOUNT_KINDS = ['standard', 'restricted'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

export const ACCOUNT_STATUSES = ['open', 'closed'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Caller-chosen account ids (reference s.1). */
export const ACCOUNT_ID_PATTERN = /^[a-zA-Z0-9_:.-]{1,255}$/;

export type Direction = 'debit' | 'credit';

/** The side on which an account of this type reads positive. */
export function normalSide(type: AccountType): Direction {
  return type === 'asset' || type === 'expense' ? 'debit' : 'credit';
}
