import type { LoadedRow } from './reconciliation-candidates.repository';
import type { RunRecord } from './reconciliation-run.record';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The run object of reference s.12. The result arrays travel on create and GET by id; the list
 * (which never pages) carries the counts only.
 */
export function presentRun(run: RunRecord, withResults: boolean) {
  return {
    object: 'reconciliation_run' as const,
    id: run.id,
    source: run.sourceName,
    source_id: run.sourceId,
    status: run.status,
    external_reference: run.externalReference,
    note: run.note,
    strategy: run.strategy,
    window_seconds: run.windowSeconds,
    auto_resolve_below_minor_units: run.autoResolveBelow,
    from: run.rangeFrom?.toISOString() ?? null,
    to: run.rangeTo?.toISOString() ?? null,
    matched_count: run.matchedCount,
    unmatched_count: run.unmatchedCount,
    pass_counts: run.passCounts,
    ...(withResults && {
      matched: JSON.parse(run.matchedJson ?? '[]') as object[],
      unmatched_external: JSON.parse(run.unmatchedExternalJson ?? '[]') as object[],
      unmatched_internal: JSON.parse(run.unmatchedInternalJson ?? '[]') as object[],
    }),
    error_message: run.errorMessage,
    attempts: run.attempts,
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
    created_at: run.createdAt.toISOString(),
    updated_at: run.updatedAt.toISOString(),
  };
}

/**
 * The whole run in the single-resource envelope, as JSON text: the result arrays (a hundred
 * thousand entries for a large run) are spliced in as the database returned them, never parsed
 * and serialized again.
 */
export function runEnvelopeJson(run: RunRecord, meta: { livemode: boolean; request_id: string }): string {
  const head = JSON.stringify(presentRun(run, false));
  const arrays = `"matched":${run.matchedJson ?? '[]'},"unmatched_external":${run.unmatchedExternalJson ?? '[]'},"unmatched_internal":${run.unmatchedInternalJson ?? '[]'}`;
  return `{"data":${head.slice(0, -1)},${arrays}},"livemode":${meta.livemode},"request_id":${JSON.stringify(meta.request_id)}}`;
}

export function presentUnmatchedRow(row: LoadedRow) {
  return {
    external_transaction_id: row.id,
    external_id: row.externalId,
    amount: row.amount.toString(),
    currency: row.currency,
    account_id: row.accountId,
    external_at: iso(row.at),
  };
}
