/** Columns of `postings` aliased onto PostingEntity, for raw SQL reads (`p` is the table alias). */
export const POSTING_COLUMNS = `p.id::text AS id, p.ledger_id AS "ledgerId", p.transaction_id AS "transactionId",
  p.account_id AS "accountId", p.amount::text AS amount, p.currency, p.direction, p.pending,
  p.committed_at AS "committedAt", p.voided_at AS "voidedAt", p.tags, p.value_date AS "valueDate",
  p.reconciled_at AS "reconciledAt", p.reconciliation_reference AS "reconciliationReference", p.created_at AS "createdAt"`;

/** Postings a match may take: posted (not pending, not voided) and not yet reconciled (`p` is the alias). */
export const MATCHABLE_POSTING = `p.reconciled_at IS NULL AND NOT p.pending AND p.voided_at IS NULL`;

/** A posting's amount as matching counts it: a debit adds, a credit subtracts (`p` is the alias). */
export const SIGNED_POSTING_AMOUNT = `CASE p.direction WHEN 'debit' THEN p.amount ELSE -p.amount END`;
