import { AccountTemplateEntity } from './account-template.entity';

export function presentAccountTemplate(t: AccountTemplateEntity) {
  return {
    object: 'account_template' as const,
    name: t.name,
    accounting_type: t.accountingType,
    allowed_currencies: t.allowedCurrencies,
    balance_non_negative: t.balanceNonNegative,
    description: t.description,
    fund_classification: t.fundClassification,
    custody_provider: t.custodyProvider,
    custody_external_id: t.custodyExternalId,
    metadata: t.metadata,
    created_at: t.createdAt.toISOString(),
  };
}
