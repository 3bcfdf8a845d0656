import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery, PageQuery } from '../../common/pagination';

/** `expand`: a comma list of postings.account (inline compact accounts) and balances (touched accounts). */
function OptionalExpand(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description: 'Comma list of postings.account (inline compact accounts) and balances (touched accounts)' }),
    IsOptional(),
    IsString(),
    MaxLength(200),
  );
}

export class ExpandQuery extends LedgerSelectionQuery {
  @OptionalExpand()
  expand?: string;
}

export class CreateTransactionQuery extends ExpandQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Same as body dry_run' })
  @IsOptional()
  @IsIn(['true', 'false'])
  dry_run?: 'true' | 'false';
}

export class LookupQuery extends ExpandQuery {
  @ApiProperty({ maxLength: 200, description: 'external_refs rail, e.g. ach' })
  @IsString()
  @MaxLength(200)
  rail: string;

  @ApiProperty({ maxLength: 200, description: 'external_refs kind (ref_kind on the transaction)' })
  @IsString()
  @MaxLength(200)
  kind: string;

  @ApiProperty({ maxLength: 500, description: 'external_refs value' })
  @IsString()
  @MaxLength(500)
  value: string;
}

const DIGITS = /^\d{1,1000}$/;

export class ListTransactionsQuery extends PageQuery {
  @OptionalExpand()
  expand?: string;

  @ApiPropertyOptional({ description: 'metadata[key]=value, ANDed', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Has a posting to this account' })
  @IsOptional()
  @IsString()
  account?: string;

  @ApiPropertyOptional({ description: 'Has a posting in this currency' })
  @IsOptional()
  @IsString()
  currency?: string;

  @ApiPropertyOptional({ description: 'Has a posting of at least this amount' })
  @IsOptional()
  @Matches(DIGITS)
  amount_gte?: string;

  @ApiPropertyOptional({ description: 'Has a posting of at most this amount' })
  @IsOptional()
  @Matches(DIGITS)
  amount_lte?: string;

  @OptionalInstant('value_date at or after (inclusive)')
  value_date_from?: string;

  @OptionalInstant('value_date before (exclusive)')
  value_date_to?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'])
  reversed?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['pending', 'posted', 'archived'] })
  @IsOptional()
  @IsIn(['pending', 'posted', 'archived'])
  status?: 'pending' | 'posted' | 'archived';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  ref_rail?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  ref_kind?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  ref_value?: string;
}
