import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { RUN_STATUSES } from '../reconciliation-run.record';

/** One matched pair (a sum_in_window match lists one entry per posting). */
export class MatchedEntryResponse {
  @ApiProperty({ format: 'uuid' }) external_transaction_id: string;
  @ApiProperty() external_id: string;
  @ApiProperty({ type: 'integer', format: 'int64' }) posting_id: number;
  @ApiProperty({ description: 'Account of the posting' }) account: string;
  @ApiProperty({ description: "The posting's signed amount (minor units): debit positive, credit negative" }) amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ format: 'date-time' }) posting_value_date: string;
  @ApiProperty({ format: 'date-time', description: "The row's occurred_at" }) external_at: string;
  @ApiProperty({ format: 'uuid' }) match_id: string;
  @ApiProperty({ enum: ['external_ref', 'exact', 'sum_in_window'], description: 'The pass that made the match' }) strategy: string;
  @ApiProperty({ description: 'Row amount minus the sum of the match\'s postings; not "0" only when auto-resolved' }) residual: string;
}

export class UnmatchedExternalResponse {
  @ApiProperty({ format: 'uuid' }) external_transaction_id: string;
  @ApiProperty() external_id: string;
  @ApiProperty() amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ type: 'string', nullable: true }) account_id: string | null;
  @ApiProperty({ format: 'date-time' }) external_at: string;
}

export class UnmatchedInternalResponse {
  @ApiProperty({ type: 'integer', format: 'int64' }) posting_id: number;
  @ApiProperty({ format: 'uuid' }) transaction_id: string;
  @ApiProperty() account: string;
  @ApiProperty({ description: 'Signed: debit positive, credit negative' }) amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ format: 'date-time' }) value_date: string;
}

/** Wire shape of a reconciliation run (documentation only; presentRun builds it). */
export class ReconciliationRunResponse {
  @ApiProperty({ enum: ['reconciliation_run'] }) object: 'reconciliation_run';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Source name' }) source: string;
  @ApiProperty({ format: 'uuid' }) source_id: string;
  @ApiProperty({ enum: RUN_STATUSES, description: 'queued -> running -> completed | failed; small runs answer completed at once' })
  status: string;
  @ApiProperty({ type: 'string', nullable: true }) external_reference: string | null;
  @ApiProperty({ type: 'string', nullable: true }) note: string | null;
  @ApiProperty({ enum: ['exact', 'sum_in_window'] }) strategy: string;
  @ApiProperty() window_seconds: number;
  @ApiProperty() auto_resolve_below_minor_units: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) from: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) to: string | null;
  @ApiProperty({ description: 'External rows matched' }) matched_count: number;
  @ApiProperty({ description: 'External rows left open' }) unmatched_count: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Rows matched per pass: external_ref, exact, sum_in_window' })
  pass_counts: Record<string, number>;
  @ApiPropertyOptional({ type: [MatchedEntryResponse], description: 'On create and GET by id (empty until completed)' })
  matched?: MatchedEntryResponse[];
  @ApiPropertyOptional({ type: [UnmatchedExternalResponse], description: 'On create and GET by id' })
  unmatched_external?: UnmatchedExternalResponse[];
  @ApiPropertyOptional({
    type: [UnmatchedInternalResponse],
    description: 'On create and GET by id; only for runs given from/to: unreconciled postings dated in [from, to) left unmatched',
  })
  unmatched_internal?: UnmatchedInternalResponse[];
  @ApiProperty({ type: 'string', nullable: true }) error_message: string | null;
  @ApiProperty({ description: 'Executions started (a run whose process died is picked up again)' }) attempts: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completed_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
