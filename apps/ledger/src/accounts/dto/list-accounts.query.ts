import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { ACCOUNT_KINDS, ACCOUNT_TYPES, AccountKind, AccountType, FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';

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

  @ApiPropertyOptional({ enum: ACCOUNT_KINDS })
  @IsOptional()
  @IsIn(ACCOUNT_KINDS)
  kind?: AccountKind;

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
