import { AnonymizationRecord } from './anonymization.repository';

export function presentAnonymization(a: AnonymizationRecord) {
  return {
    object: 'anonymization_result' as const,
    anonymization_id: a.id,
    // The erasure runs in the request's own database transaction, so it is done when we answer.
    status: 'completed' as const,
    anonymized_at: a.anonymizedAt.toISOString(),
    reason: a.reason,
  };
}
