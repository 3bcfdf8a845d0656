import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { RequiredText } from '@bursar/service-kit';
import { ACCOUNT_TYPES, AccountType } from '../../accounts/account-kinds';
import { ClassificationFieldsDto } from '../../accounts/dto/classification-fields.dto';
import { CURRENCY_PATTERN } from '../../accounts/currencies';

export class CreateAccountTemplateDto extends ClassificationFieldsDto {
  @RequiredText(1, 200, { description: 'Unique within the ledger; templates are immutable, so evolve one by creating a new name' })
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
}
