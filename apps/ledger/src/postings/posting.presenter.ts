import type { AccountType } from '../accounts/account-kinds';
import { PostingEntity } from './posting.entity';

/** What `expand=postings.account` inlines in place of the account id. */
export interface CompactAccount {
  object: 'account';
  id: string;
  type: AccountType;
  currency: string;
}

export function presentPosting(p: PostingEntity, account?: CompactAccount, runningBalance?: bigint) {
  return {
    object: 'posting' as const,
    id: Number(p.id),
    transaction: p.transactionId,
    account: account ?? p.accountId,
    amount: p.amount,
    currency: p.currency,
    direction: p.direction,
    pending: p.pending,
    tags: p.tags,
    value_date: p.valueDate.toISOString(),
    created_at: p.createdAt.toISOString(),
    voided_at: p.voidedAt?.toISOString() ?? null,
    reconciled_at: p.reconciledAt?.toISOString() ?? null,
    reconciliation_reference: p.reconciliationReference,
    ...(runningBalance !== undefined && { running_balance: runningBalance.toString() }),
  };
}

export type PresentedPosting = ReturnType<typeof presentPosting>;
