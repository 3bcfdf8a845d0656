import { SIGNED_POSTING_AMOUNT } from '../postings/posting.columns';

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

/** A timestamptz column as ISO-8601 UTC text with milliseconds, as JavaScript's toISOString writes it. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One entry of a run's `matched[]`: a match (`m`: id, strategy, residual) with its row (`x`) and one
 * of its postings (`p`). The one form both a batch's slice and a run's full rebuild write, in
 * MATCHED_ENTRY_ORDER.
 */
export const MATCHED_ENTRY = `json_build_object('external_id', x.external_id, 'external_transaction_id', x.id,
  'posting_id', p.id, 'account', p.account_id, 'amount', (${SIGNED_POSTING_AMOUNT})::text, 'currency', p.currency,
  'posting_value_date', ${iso('p.value_date')}, 'external_at', ${iso('x.occurred_at')}, 'match_id', m.id,
  'strategy', m.strategy, 'residual', m.residual::numeric::text)`;
export const MATCHED_ENTRY_ORDER = 'x.occurred_at, x.id, p.id';

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
