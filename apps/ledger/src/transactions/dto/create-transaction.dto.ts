import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Min, ValidateBy } from 'class-validator';
import { NestedDto, NestedList, RequiredText } from '@bursar/service-kit';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { Direction } from '../../accounts/account-kinds';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { IsAccountId } from '../../accounts/account-id.validator';
import { IsCurrency } from '../../accounts/currency.validator';

/** A flat map of string values (posting tags). */
export function isStringMap(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

function IsStringMap(): PropertyDecorator {
  return ValidateBy({
    name: 'isStringMap',
    validator: {
      validate: isStringMap,
      defaultMessage: () => 'tags must be an object of string values',
    },
  });
}

const SIGNED_DIGITS = /^-?\d{1,1000}$/;

export class PostingInputDto {
  @ApiProperty({ description: 'Account id' })
  @IsAccountId()
  account: string;

  @ApiProperty({ description: 'Positive integer minor units as a digit string (any size) or a safe integer' })
  @IsMinorUnits(1)
  amount: string | number;

  @ApiProperty({ description: "Must equal the account's currency" })
  @IsCurrency()
  currency: string;

  @ApiProperty({ enum: ['debit', 'credit'] })
  @IsIn(['debit', 'credit'])
  direction: Direction;

  @ApiPropertyOptional({ description: 'Held until POST /transactions/{id}/commit; released by reverse', default: false })
  @IsOptional()
  @IsBoolean()
  pending?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsStringMap()
  tags?: Record<string, string>;
}

export class ExternalRefInputDto {
  @RequiredText(1, 200, { description: 'Payment rail, e.g. ach, card, swift' })
  rail: string;

  @RequiredText(1, 200, { description: 'Kind of reference on that rail' })
  kind: string;

  @RequiredText(1, 500)
  value: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;
}

export class ConditionInputDto {
  @ApiProperty()
  @IsAccountId()
  account: string;

  @ApiPropertyOptional({ description: "The account's lock_version must equal this" })
  @IsOptional()
  @IsInt()
  @Min(1)
  lock_version?: number;

  @ApiPropertyOptional({ description: 'Available balance (before this transaction) must be at least this; signed digit string' })
  @IsOptional()
  @IsString()
  @Matches(SIGNED_DIGITS)
  min_available_balance?: string;

  @ApiPropertyOptional({ description: 'Available balance (before this transaction) must be at most this' })
  @IsOptional()
  @IsString()
  @Matches(SIGNED_DIGITS)
  max_available_balance?: string;
}

export class TransactionBodyDto {
  @NestedList(() => PostingInputDto, 2, 250)
  postings: PostingInputDto[];

  @OptionalMetadata()
  metadata?: Record<string, unknown>;

  @OptionalInstant('Economic date; defaults to booking time')
  value_date?: string;
}

export class CreateTransactionDto extends TransactionBodyDto {
  @ApiPropertyOptional({ type: [ExternalRefInputDto], description: '(rail, kind, value) may belong to one transaction per ledger' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @NestedDto(() => ExternalRefInputDto, { each: true })
  external_refs?: ExternalRefInputDto[];

  @ApiPropertyOptional({ type: [ConditionInputDto], description: 'Checked atomically with the write; 409 precondition_failed' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @NestedDto(() => ConditionInputDto, { each: true })
  conditions?: ConditionInputDto[];

  @ApiPropertyOptional({ description: 'Validate only: nothing is written, no key is used, no events' })
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

export class BulkItemDto extends TransactionBodyDto {
  @ApiProperty({ description: 'Required per item; a known key answers `replayed`' })
  @IsString()
  @Matches(/^[A-Za-z0-9_:.-]{1,255}$/)
  idempotency_key: string;
}

export class BulkTransactionsDto {
  @ApiPropertyOptional({ default: false, description: 'All or nothing' })
  @IsOptional()
  @IsBoolean()
  atomic?: boolean;

  @NestedList(() => BulkItemDto, 1, 1000)
  transactions: BulkItemDto[];
}
