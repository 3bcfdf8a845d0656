import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches, MaxLength, ValidateBy } from 'class-validator';
import { NestedDto, Nullable, OptionalIn, OptionalInt, RequiredText } from '@bursar/service-kit';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { CsvMappingDto } from '../../statements/dto/csv-mapping.dto';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';

export const MATCH_STRATEGIES = ['exact', 'sum_in_window'] as const;
/**
 * A source's kind names the system its rows come from (`custom` when unsaid). Clients of the
 * reference create sources of other kinds (its own live check uses `custody`), so any lowercase
 * label is taken; every kind is fed through the one generic signed-push adapter for now.
 */
export const SOURCE_KIND_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/** Most account references one source maps. */
export const MAX_ACCOUNT_MAP_ENTRIES = 1000;

/** A plain object of up to MAX_ACCOUNT_MAP_ENTRIES references (1-255 characters) to account ids (1-255 characters). */
function isAccountMap(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  const text = (v: unknown) => typeof v === 'string' && v.length >= 1 && v.length <= 255;
  return entries.length <= MAX_ACCOUNT_MAP_ENTRIES && entries.every(([reference, accountId]) => text(reference) && text(accountId));
}

/** The settings PATCH may change; create takes them too. */
export class UpdateSourceDto {
  @Nullable({ type: 'string', maxLength: 1000 })
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @OptionalIn(MATCH_STRATEGIES, { description: 'Strategy runs on this source use unless they name one' })
  default_strategy?: (typeof MATCH_STRATEGIES)[number];

  @OptionalInt(0, 31_536_000, { description: 'Largest |posting value_date - row occurred_at| a run accepts' })
  default_window_seconds?: number;

  @ApiPropertyOptional({ type: 'string', pattern: '^\\d+$', description: 'Residual (minor units) a run may resolve automatically' })
  @IsOptional()
  @IsMinorUnits(0)
  default_tolerance_minor_units?: string | number;

  @Nullable({ type: 'string', description: 'Account whose postings runs on this source consider by default' })
  @IsString()
  @Length(1, 255)
  default_account_id?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', minLength: 1, maxLength: 255 },
    maxProperties: MAX_ACCOUNT_MAP_ENTRIES,
    nullable: true,
    example: { DE89370400440532013000: 'bank-eur' },
    description:
      "Ledger account per statement account reference (IBAN or account number as the file names it), replaced whole; null clears it. " +
      "A statement's balance check uses its reference's account, else default_account_id",
  })
  @IsOptional()
  @ValidateBy({
    name: 'isAccountMap',
    validator: {
      validate: isAccountMap,
      defaultMessage: () => `account_map must be an object of up to ${MAX_ACCOUNT_MAP_ENTRIES} account references to account ids (strings of 1 to 255 characters)`,
    },
  })
  account_map?: Record<string, string> | null;

  @Nullable({ type: CsvMappingDto, description: 'How CSV statement files of this source map onto entries (POST /sources/{id}/statements)' })
  @NestedDto(() => CsvMappingDto)
  csv_mapping?: CsvMappingDto | null;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;
}

export class CreateSourceDto extends UpdateSourceDto {
  @RequiredText(1, 200, { description: 'Unique per ledger, stored lowercased', example: 'chase-operating', maxLength: 200 })
  name: string;

  @ApiPropertyOptional({
    type: 'string',
    pattern: SOURCE_KIND_PATTERN.source,
    default: 'custom',
    example: 'custody',
    description: 'The kind of system the rows come from (a lowercase label); every kind takes the generic signed push for now',
  })
  @IsOptional()
  @IsString()
  @Matches(SOURCE_KIND_PATTERN, { message: 'kind must be a lowercase label: a letter, then up to 63 of a-z 0-9 _ . -' })
  kind?: string;
}
