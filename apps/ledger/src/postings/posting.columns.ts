/** Columns of `postings` aliased onto PostingEntity, for raw SQL reads (`p` is the table alias). */
export const POSTING_COLUMNS = `p.id::text AS id, p.ledger_id AS "ledgerId", p.transaction_id AS "transactionId",
  p.account_id AS "accountId", p.amount::text AS amount, p.currency, p.direction, p.pending,
  p.committed_at AS "committedAt", p.voided_at AS "voidedAt", p.tags, p.value_date AS "valueDate",
  p.reconciled_at AS "reconciledAt", p.reconciliation_reference AS "reconciliationReference", p.created_at AS "createdAt"`;
