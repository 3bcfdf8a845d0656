import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import {
  ACCOUNT_ID_PATTERN,
  ACCOUNT_KINDS,
  ACCOUNT_TYPES,
  AccountKind,
  AccountType,
  OVERDRAFT_POLICIES,
  OverdraftPolicy,
} from '../account-kinds';
import { CURRENCY_PATTERN } from '../currencies';
import { ClassificationFieldsDto } from './classification-fields.dto';

export class CreateAccountDto extends ClassificationFieldsDto {
  @ApiProperty({ description: 'Caller-chosen, immutable, unique in the ledger', pattern: ACCOUNT_ID_PATTERN.source })
  @IsString()
  @Matches(ACCOUNT_ID_PATTERN)
  id: string;

  @ApiProperty()
  @IsString()
  @Length(1, 500)
  name: string;

  @ApiPropertyOptional({ enum: ACCOUNT_TYPES, description: "Required unless a template supplies it (then it must match the template's)" })
  @IsOptional()
  @IsIn(ACCOUNT_TYPES)
  type?: AccountType;

  @ApiProperty({ description: 'Any currency name (fiat, token, POINTS); ticker-shaped names are uppercased' })
  @IsString()
  @Matches(CURRENCY_PATTERN)
  currency: string;

  @ApiPropertyOptional({ enum: OVERDRAFT_POLICIES, description: 'Default allowed, or none when the template is balance_non_negative' })
  @IsOptional()
  @IsIn(OVERDRAFT_POLICIES)
  overdraft_policy?: OverdraftPolicy;

  @ApiPropertyOptional({ description: 'With overdraft_policy none: how far below zero the available balance may go (default "0")' })
  @IsOptional()
  @IsMinorUnits(0)
  overdraft_limit?: string | number;

  @ApiPropertyOptional({ enum: ACCOUNT_KINDS })
  @IsOptional()
  @IsIn(ACCOUNT_KINDS)
  account_kind?: AccountKind;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 500)
  counterparty_ref?: string;

  @ApiPropertyOptional({ description: 'Name of an account template applied and checked before insert' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  template?: string;

  @ApiPropertyOptional({ description: 'Parent account id, for category balances' })
  @IsOptional()
  @IsString()
  @Matches(ACCOUNT_ID_PATTERN)
  parent_id?: string;

  @ApiPropertyOptional({ description: 'Pairs with ledgerable_id' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  ledgerable_type?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  ledgerable_id?: string;
}
