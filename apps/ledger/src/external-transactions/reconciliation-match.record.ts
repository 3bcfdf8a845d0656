/** One match of an external row to postings; reversing it (unmatch) keeps the row for audit. */
export interface ReconciliationMatchRecord {
  id: string;
  externalTransactionId: string;
  reconciliationRunId: string | null;
  strategy: 'external_ref' | 'exact' | 'sum_in_window' | 'manual';
  postingIds: string[];
  amount: string;
  currency: string;
  residual: string;
  autoResolved: boolean;
  note: string | null;
  createdAt: Date;
  reversedAt: Date | null;
  reversedReason: string | null;
}

/** Columns of `reconciliation_matches` aliased onto ReconciliationMatchRecord (`m` is the table alias). */
export const MATCH_COLUMNS = `m.id, m.external_transaction_id AS "externalTransactionId", m.reconciliation_run_id AS "reconciliationRunId",
  m.strategy, m.posting_ids::text[] AS "postingIds", m.amount::text AS amount, m.currency, m.residual::text AS residual,
  m.auto_resolved AS "autoResolved", m.note, m.created_at AS "createdAt", m.reversed_at AS "reversedAt", m.reversed_reason AS "reversedReason"`;

export function presentMatch(m: ReconciliationMatchRecord) {
  return {
    object: 'reconciliation_match' as const,
    id: m.id,
    external_transaction_id: m.externalTransactionId,
    reconciliation_run_id: m.reconciliationRunId,
    strategy: m.strategy,
    // Posting ids are int64 numbers on the wire, as on postings themselves.
    posting_ids: m.postingIds.map(Number),
    amount: m.amount,
    currency: m.currency,
    residual: m.residual,
    auto_resolved: m.autoResolved,
    note: m.note,
    created_at: m.createdAt.toISOString(),
    reversed_at: m.reversedAt?.toISOString() ?? null,
    reversed_reason: m.reversedReason,
  };
}

/** Payload of reconciliation.match_created / match_reversed: the match, with `match_id` as the reference names it. */
export function matchEventPayload(m: ReconciliationMatchRecord) {
  return { match_id: m.id, ...presentMatch(m) };
}
