import { AccountEntity } from './account.entity';
import { describeCurrency } from './currencies';

export function presentAccount(a: AccountEntity) {
  return {
    object: 'account' as const,
    id: a.id,
    name: a.name,
    type: a.type,
    currency: a.currency,
    ...describeCurrency(a.currency),
    overdraft_policy: a.overdraftPolicy,
    overdraft_limit: a.overdraftLimit,
    account_kind: a.accountKind,
    counterparty_ref: a.counterpartyRef,
    fund_classification: a.fundClassification,
    custody_provider: a.custodyProvider,
    custody_external_id: a.custodyExternalId,
    template: a.template,
    parent_id: a.parentId,
    ledgerable_type: a.ledgerableType,
    ledgerable_id: a.ledgerableId,
    metadata: a.metadata,
    lock_version: a.lockVersion,
    status: a.status,
    closed_at: a.closedAt?.toISOString() ?? null,
    closed_by_label: a.closedByLabel,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export type PresentedAccount = ReturnType<typeof presentAccount>;
