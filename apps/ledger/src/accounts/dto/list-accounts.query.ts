import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { ACCOUNT_KINDS, ACCOUNT_TYPES, AccountType, FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';

/** Account kinds, plus `reserve`, the reference's R1 name for `restricted`. */
const LISTED_KINDS = [...ACCOUNT_KINDS, 'reserve'] as const;

export class ListAccountsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ACCOUNT_TYPES })
  @IsOptional()
  @IsIn(ACCOUNT_TYPES)
  type?: AccountType;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(32)
  currency?: string;

  @ApiPropertyOptional({ enum: LISTED_KINDS, description: 'reserve is an older name of restricted' })
  @IsOptional()
  @IsIn(LISTED_KINDS)
  kind?: (typeof LISTED_KINDS)[number];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  counterparty_ref?: string;

  @ApiPropertyOptional({ enum: FUND_CLASSIFICATIONS })
  @IsOptional()
  @IsIn(FUND_CLASSIFICATIONS)
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
