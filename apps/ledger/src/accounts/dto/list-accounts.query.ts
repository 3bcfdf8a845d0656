import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { ACCOUNT_KINDS, ACCOUNT_TYPES, AccountType, FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';
import { OptionalIn } from '@bursar/service-kit';

/** Account kinds, plus `reserve`, the reference's R1 name for `restricted`. */
const LISTED_KINDS = [...ACCOUNT_KINDS, 'reserve'] as const;

export class ListAccountsQuery extends PageQuery {
  @OptionalIn(ACCOUNT_TYPES)
  type?: AccountType;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(32)
  currency?: string;

  @OptionalIn(LISTED_KINDS, { description: 'reserve is an older name of restricted' })
  kind?: (typeof LISTED_KINDS)[number];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  counterparty_ref?: string;

  @OptionalIn(FUND_CLASSIFICATIONS)
  fund_classification?: FundClassification;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  custody_provider?: string;

  @ApiPropertyOptional({ description: 'Direct children of this account' })
  @IsOptional()
  @IsString()
  parent_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  ledgerable_type?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  ledgerable_id?: string;
}
