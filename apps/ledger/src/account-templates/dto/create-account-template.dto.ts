import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ACCOUNT_TYPES, AccountType, FUND_CLASSIFICATIONS, FundClassification } from '../../accounts/account-kinds';
import { CURRENCY_PATTERN } from '../../accounts/currencies';

export class CreateAccountTemplateDto {
  @ApiProperty({ description: 'Unique within the ledger; templates are immutable, so evolve one by creating a new name' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ enum: ACCOUNT_TYPES })
  @IsIn(ACCOUNT_TYPES)
  accounting_type: AccountType;

  @ApiPropertyOptional({ type: [String], description: 'Currencies accounts may use; empty means any' })
  @IsOptional()
  @IsArray()
  @Matches(CURRENCY_PATTERN, { each: true })
  allowed_currencies?: string[];

  @ApiPropertyOptional({ description: 'When true, accounts made from the template default to overdraft_policy none' })
  @IsOptional()
  @IsBoolean()
  balance_non_negative?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ enum: FUND_CLASSIFICATIONS, description: 'Default classification inherited by accounts' })
  @IsOptional()
  @IsIn(FUND_CLASSIFICATIONS)
  fund_classification?: FundClassification;

  @ApiPropertyOptional({ description: 'Custody identifier inherited by accounts; pairs with custody_external_id' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  custody_provider?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  custody_external_id?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}
