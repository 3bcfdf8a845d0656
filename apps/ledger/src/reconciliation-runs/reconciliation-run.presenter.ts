import type { LoadedRow, WrittenMatch } from './reconciliation-runs.repository';
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
      matched: run.matched ?? [],
      unmatched_external: run.unmatchedExternal ?? [],
      unmatched_internal: run.unmatchedInternal ?? [],
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
 * The `matched[]` array as JSON text: one entry per posting of a match (a sum_in_window match lists
 * each of its postings). Written as text straight away, since a large run has a hundred thousand
 * entries; ReconciliationRunsRepository.complete builds the same entries in SQL when it reads
 * matches back.
 */
export function matchedEntriesJson(written: WrittenMatch[]): string {
  const parts: string[] = [];
  for (const { match, id } of written) {
    const row = match.row as LoadedRow;
    const common = `"external_id":${JSON.stringify(row.externalId)},"external_transaction_id":"${row.id}"`;
    const tail = `"external_at":"${iso(row.at)}","match_id":"${id}","strategy":"${match.pass}","residual":"${match.residual}"`;
    for (const p of match.postings) {
      parts.push(
        `{${common},"posting_id":${Number(p.id)},"account":${JSON.stringify(p.accountId)},"amount":"${p.amount}",` +
          `"currency":${JSON.stringify(p.currency)},"posting_value_date":"${iso(p.valueDate)}",${tail}}`,
      );
    }
  }
  return `[${parts.join(',')}]`;
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
