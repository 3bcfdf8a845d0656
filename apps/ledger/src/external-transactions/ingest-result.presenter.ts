import { presentExternalTransaction } from './external-transaction.record';
import type { IngestItemResult, IngestOutcome } from './external-transactions.service';

export function presentIngestItem(r: IngestItemResult) {
  return {
    external_id: r.externalId,
    status: r.status,
    ...(r.record && { external_transaction: presentExternalTransaction(r.record) }),
    ...(r.error && { error: r.error }),
  };
}

export function presentIngestResult(sourceId: string, outcome: IngestOutcome) {
  return {
    object: 'ingest_result' as const,
    source_id: sourceId,
    created_count: outcome.createdCount,
    replayed_count: outcome.replayedCount,
    error_count: outcome.errorCount,
    results: outcome.results.map(presentIngestItem),
  };
}
