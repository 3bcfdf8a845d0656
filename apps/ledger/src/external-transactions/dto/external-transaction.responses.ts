import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EXTERNAL_TRANSACTION_STATUSES } from '../external-transaction.record';

/** Wire shape of an external transaction (documentation only; presentExternalTransaction builds it). */
export class ExternalTransactionResponse {
  @ApiProperty({ enum: ['external_transaction'] }) object: 'external_transaction';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) source_id: string;
  @ApiProperty() external_id: string;
  @ApiProperty({ pattern: '^-?\\d+$', description: 'Signed minor units' }) amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ enum: EXTERNAL_TRANSACTION_STATUSES }) status: string;
  @ApiProperty({ type: 'string', nullable: true }) account_id: string | null;
  @ApiProperty({ format: 'date-time' }) occurred_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) matched_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) ignored_reason: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) reconciliation_run_id: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) reconciliation_match_id: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reference_rail: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reference_kind: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reference_value: string | null;
  @ApiProperty({ nullable: true, description: 'As ingested' }) raw: unknown;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class IngestErrorResponse {
  @ApiProperty({ enum: ['invalid_request'] }) code: string;
  @ApiProperty() message: string;
  @ApiProperty({ example: 'items[3].amount' }) param: string;
}

export class IngestItemResultResponse {
  @ApiProperty({ type: 'string', nullable: true }) external_id: string | null;
  @ApiProperty({ enum: ['created', 'replayed', 'error'] }) status: string;
  @ApiPropertyOptional({ type: ExternalTransactionResponse, description: 'created or replayed: the stored row (a replay never changes it)' })
  external_transaction?: ExternalTransactionResponse;
  @ApiPropertyOptional({ type: IngestErrorResponse }) error?: IngestErrorResponse;
}

export class IngestResultResponse {
  @ApiProperty({ enum: ['ingest_result'] }) object: 'ingest_result';
  @ApiProperty({ format: 'uuid' }) source_id: string;
  @ApiProperty() created_count: number;
  @ApiProperty() replayed_count: number;
  @ApiProperty() error_count: number;
  @ApiProperty({ type: [IngestItemResultResponse], description: 'One per item, in input order' }) results: IngestItemResultResponse[];
}

/** Wire shape of a match (documentation only; presentMatch builds it). */
export class ReconciliationMatchResponse {
  @ApiProperty({ enum: ['reconciliation_match'] }) object: 'reconciliation_match';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) external_transaction_id: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The run that made it; null for manual matches' })
  reconciliation_run_id: string | null;
  @ApiProperty({ enum: ['external_ref', 'exact', 'sum_in_window', 'manual'] }) strategy: string;
  @ApiProperty({ type: 'array', items: { type: 'integer', format: 'int64' } }) posting_ids: number[];
  @ApiProperty({ pattern: '^-?\\d+$' }) amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ pattern: '^-?\\d+$', description: 'External amount minus the postings signed sum (debit +, credit -)' }) residual: string;
  @ApiProperty({ description: 'Residual within the run tolerance, accepted' }) auto_resolved: boolean;
  @ApiProperty({ type: 'string', nullable: true }) note: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Set by unmatch' }) reversed_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reversed_reason: string | null;
}
