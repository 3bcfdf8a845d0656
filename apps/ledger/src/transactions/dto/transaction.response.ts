import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BalanceResponse } from '../../balances/dto/balance.response';
import { PostingResponse } from '../../postings/dto/posting.response';

const nullableString = { type: 'string', nullable: true } as const;

export class ExternalRefResponse {
  @ApiProperty({ enum: ['external_ref'] }) object: 'external_ref';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() rail: string;
  @ApiProperty() ref_kind: string;
  @ApiProperty() value: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** Wire shape of a transaction (documentation only; presentTransaction builds it). */
export class TransactionResponse {
  @ApiProperty({ enum: ['transaction'] }) object: 'transaction';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty(nullableString) idempotency_key: string | null;
  @ApiProperty({ enum: ['pending', 'posted', 'archived'] }) status: string;
  @ApiProperty({ ...nullableString, format: 'uuid', description: 'The transaction this one reverses or refunds' }) reverses: string | null;
  @ApiProperty({ ...nullableString, format: 'uuid' }) reversed_by: string | null;
  @ApiProperty({ ...nullableString, format: 'uuid', description: 'Refunds only: the original' }) refunds: string | null;
  @ApiProperty({ ...nullableString, pattern: '^\\d+$' }) refund_amount: string | null;
  @ApiProperty(nullableString) refund_currency: string | null;
  @ApiProperty({ ...nullableString, description: 'Decimal string; only when the legs span two currencies' }) exchange_rate: string | null;
  @ApiProperty(nullableString) base_currency: string | null;
  @ApiProperty(nullableString) quote_currency: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: [PostingResponse] }) postings: PostingResponse[];
  @ApiProperty({ type: [ExternalRefResponse] }) external_refs: ExternalRefResponse[];
  @ApiProperty({ format: 'date-time' }) value_date: string;
  @ApiProperty({ format: 'date-time' }) booking_date: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "Index of its creation in the ledger's books log (GET /ledger/v1/log/entries); null until sealed, so always null in the write's own answer",
  })
  log_index: number | null;
  @ApiPropertyOptional({ type: [BalanceResponse], description: 'With expand=balances: every touched account after the write' })
  balances?: BalanceResponse[];
}

export class DryRunSummaryResponse {
  @ApiProperty({ type: [String], description: 'Ids of the accounts the transaction would touch (empty when it is refused)' })
  accounts: string[];
  @ApiProperty({ type: [BalanceResponse], description: 'Each touched account as it would stand after the write' })
  balances: BalanceResponse[];
  @ApiProperty({
    type: 'object',
    description: 'Debit and credit totals per currency (minor units)',
    additionalProperties: { type: 'object', required: ['debit', 'credit'], properties: { debit: { type: 'string' }, credit: { type: 'string' } } },
  })
  totals: Record<string, { debit: string; credit: string }>;
}

/** Wire shape of a dry run's verdict: nothing written, no key used, no event emitted. */
export class DryRunResponse {
  @ApiProperty({ enum: ['dry_run'] }) object: 'dry_run';
  @ApiProperty() valid: boolean;
  @ApiPropertyOptional({
    type: 'object',
    description: 'When valid is false: the error the write would have answered',
    properties: { code: { type: 'string' }, message: { type: 'string' } },
    additionalProperties: true,
  })
  error?: { code: string; message: string };
  @ApiProperty({ type: DryRunSummaryResponse }) summary: DryRunSummaryResponse;
}
