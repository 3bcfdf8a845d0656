import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, IsUUID, MaxLength, ValidateBy } from 'class-validator';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { pageQueryOf, COMMON_LIMITS } from '../../common/pagination';
import { EXTERNAL_TRANSACTION_STATUSES } from '../external-transaction.record';
import { MAX_INGEST_ITEMS } from '../external-transactions.service';
import { OptionalIn, OptionalText } from '@bursar/service-kit';

const INT64_MAX = 9223372036854775807n;

/** A posting id: int64, as a number or a digit string. */
export function isPostingId(value: unknown): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1;
  return typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) >= 1n && BigInt(value) <= INT64_MAX;
}

/** One item of an ingest call or a push (documentation only: items are checked one by one, see parseIngestItem). */
export class IngestItemDoc {
  @ApiProperty({ maxLength: 255, description: "The source's own id of the row; with the source, the idempotency key" }) external_id: string;
  @ApiProperty({ type: 'string', pattern: '^-?\\d+$', example: '-1250', description: 'Signed integer minor units, not zero: money in positive, out negative' })
  amount: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'When the row happened; `at` is accepted instead' }) occurred_at?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Alias of occurred_at' }) at?: string;
  @ApiPropertyOptional({ maxLength: 255 }) account_id?: string;
  @ApiPropertyOptional({ description: 'reference_rail, reference_kind and reference_value: all or none' }) reference_rail?: string;
  @ApiPropertyOptional() reference_kind?: string;
  @ApiPropertyOptional() reference_value?: string;
  @ApiPropertyOptional({ description: 'The row as the source gave it; stored as is' }) raw?: unknown;
}

export class IngestDto {
  @ApiProperty({ type: [IngestItemDoc], minItems: 1, maxItems: MAX_INGEST_ITEMS, description: 'A bad item is reported in its result; the others land' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INGEST_ITEMS)
  items: unknown[];
}

export class ListExternalTransactionsQuery extends pageQueryOf(COMMON_LIMITS) {
  @OptionalIn(EXTERNAL_TRANSACTION_STATUSES)
  status?: (typeof EXTERNAL_TRANSACTION_STATUSES)[number];

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsString()
  source_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(32)
  currency?: string;

  @OptionalInstant('occurred_at at or after')
  from?: string;

  @OptionalInstant('occurred_at before')
  to?: string;
}

export class IgnoreDto {
  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class UnmatchDto extends IgnoreDto {}

export class MatchDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer', format: 'int64' },
    minItems: 1,
    maxItems: 100,
    description:
      "Postings of this ledger, posted (not pending, not voided), unreconciled, in the row's currency, whose signed sum " +
      '(a debit counts +amount, a credit -amount) equals the external amount exactly',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateBy({ name: 'isPostingId', validator: { validate: isPostingId, defaultMessage: () => 'each posting_ids entry must be a posting id' } }, { each: true })
  posting_ids: (string | number)[];

  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  note?: string;
}

export class PostingReconciliationDto {
  @OptionalText(1, 255, { maxLength: 255, description: 'Stored as the posting reconciliation_reference' })
  external_reference?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "A run of this ledger; the reference when external_reference is absent" })
  @IsOptional()
  @IsUUID()
  reconciliation_run_id?: string;
}
