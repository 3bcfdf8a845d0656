import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsInstant, OptionalInstant } from '../../common/is-instant.decorator';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { COMMON_LIMITS, LedgerSelectionQuery } from '../../common/pagination';
import { OptionalInt, OptionalText, RequiredText } from '@bursar/service-kit';

/** Longest window a run may look across (a year), bounding the candidates it reads. */
export const MAX_WINDOW_SECONDS = 366 * 86_400;
/** Items of one inline run, as for one ingest call. */
export const MAX_INLINE_ITEMS = 1000;

/** Options both kinds of run take; unset ones come from the source's `default_*` settings. */
export class RunOptionsDto {
  @OptionalText(1, 255, { maxLength: 255, description: 'Your reference for the run (a statement id); also set on the postings it reconciles' })
  external_reference?: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only rows that occurred at or after this instant; with `to`, also reports unmatched_internal over [from, to)',
  })
  @IsOptional()
  @IsInstant()
  from?: string;

  @OptionalInstant('Only rows that occurred before this instant (exclusive)')
  to?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_WINDOW_SECONDS, description: "Largest |value_date - occurred_at|; default the source's (86400)" })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_WINDOW_SECONDS)
  window_seconds?: number;

  @ApiPropertyOptional({
    enum: ['exact', 'sum_in_window'],
    description: 'sum_in_window adds a third pass: up to 5 postings in the window summing to the amount. Default the source\'s (exact)',
  })
  @IsOptional()
  @IsIn(['exact', 'sum_in_window'])
  strategy?: 'exact' | 'sum_in_window';

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^\\d+$',
    description:
      "A pair whose |residual| is at most this many minor units counts as matched, marked auto_resolved with the residual " +
      "(event reconciliation.break_auto_resolved). Default the source's default_tolerance_minor_units (\"0\": exact only)",
  })
  @IsOptional()
  @IsMinorUnits(0)
  auto_resolve_below_minor_units?: string | number;
}

export class SourceRunDto extends RunOptionsDto {}

/** Reference s.12 inline run: the items are ingested into the named source (made implicitly if new), then reconciled. */
export class InlineRunDto extends RunOptionsDto {
  @RequiredText(1, 200, { maxLength: 200, description: 'Source name (case-insensitive); an implicit source is created when none has it' })
  @Matches(/\S/, { message: 'source must not be blank' })
  source: string;

  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: MAX_INLINE_ITEMS,
    items: {
      type: 'object',
      required: ['external_id', 'amount', 'currency'],
      properties: {
        external_id: { type: 'string', maxLength: 255 },
        amount: { type: 'string', pattern: '^-?\\d+$', description: 'Signed minor units: money in positive, out negative' },
        currency: { type: 'string' },
        at: { type: 'string', format: 'date-time', description: 'When it happened (alias occurred_at)' },
        occurred_at: { type: 'string', format: 'date-time' },
        account_id: { type: 'string', description: 'Match only postings of this account' },
        reference_rail: { type: 'string' },
        reference_kind: { type: 'string' },
        reference_value: { type: 'string', description: 'The triple (all or none) pairs the row with a transaction carrying it' },
        raw: { type: 'object', additionalProperties: true },
      },
    },
    description: 'Rows keyed by (source, external_id): a row seen before is reused as it is, never changed',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INLINE_ITEMS)
  @IsObject({ each: true })
  items: Record<string, unknown>[];
}

/** The run list takes a limit only: it never pages (has_more false, next_cursor null). */
export class ListRunsQuery extends LedgerSelectionQuery {
  @OptionalInt(1, COMMON_LIMITS.maxLimit, { default: COMMON_LIMITS.defaultLimit })
  limit: number = COMMON_LIMITS.defaultLimit;

  @ApiPropertyOptional({ description: 'Ignored: the list never pages' })
  @IsOptional()
  @IsString()
  cursor?: string;
}
