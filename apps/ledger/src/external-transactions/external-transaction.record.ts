export const EXTERNAL_TRANSACTION_STATUSES = ['open', 'matched', 'ignored'] as const;
export type ExternalTransactionStatus = (typeof EXTERNAL_TRANSACTION_STATUSES)[number];

/** A row of a source (a bank line, a processor payout): a signed amount seen outside the ledger. */
export interface ExternalTransactionRecord {
  id: string;
  sourceId: string;
  externalId: string;
  amount: string;
  currency: string;
  status: ExternalTransactionStatus;
  accountId: string | null;
  occurredAt: Date;
  matchedAt: Date | null;
  ignoredReason: string | null;
  reconciliationRunId: string | null;
  reconciliationMatchId: string | null;
  referenceRail: string | null;
  referenceKind: string | null;
  referenceValue: string | null;
  raw: unknown;
  createdAt: Date;
}

/** Columns of `external_transactions` aliased onto ExternalTransactionRecord (`e` is the table alias). */
export const EXTERNAL_TRANSACTION_COLUMNS = `e.id, e.source_id AS "sourceId", e.external_id AS "externalId", e.amount::text AS amount,
  e.currency, e.status, e.account_id AS "accountId", e.occurred_at AS "occurredAt", e.matched_at AS "matchedAt",
  e.ignored_reason AS "ignoredReason", e.reconciliation_run_id AS "reconciliationRunId",
  e.reconciliation_match_id AS "reconciliationMatchId", e.reference_rail AS "referenceRail", e.reference_kind AS "referenceKind",
  e.reference_value AS "referenceValue", e.raw, e.created_at AS "createdAt"`;

export function presentExternalTransaction(e: ExternalTransactionRecord) {
  return {
    object: 'external_transaction' as const,
    id: e.id,
    source_id: e.sourceId,
    external_id: e.externalId,
    amount: e.amount,
    currency: e.currency,
    status: e.status,
    account_id: e.accountId,
    occurred_at: e.occurredAt.toISOString(),
    matched_at: e.matchedAt?.toISOString() ?? null,
    ignored_reason: e.ignoredReason,
    reconciliation_run_id: e.reconciliationRunId,
    reconciliation_match_id: e.reconciliationMatchId,
    reference_rail: e.referenceRail,
    reference_kind: e.referenceKind,
    reference_value: e.referenceValue,
    raw: e.raw ?? null,
    created_at: e.createdAt.toISOString(),
  };
}

export type PresentedExternalTransaction = ReturnType<typeof presentExternalTransaction>;
