import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
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
import { ClassificationFieldsDto } from './classification-fields.dto';
import { OptionalIn, OptionalText, RequiredText } from '@bursar/service-kit';
import { IsAccountId } from '../account-id.validator';
import { IsCurrency } from '../currency.validator';

export class CreateAccountDto extends ClassificationFieldsDto {
  @ApiProperty({ description: 'Caller-chosen, immutable, unique in the ledger', pattern: ACCOUNT_ID_PATTERN.source })
  @IsAccountId()
  id: string;

  @RequiredText(1, 500)
  name: string;

  @OptionalIn(ACCOUNT_TYPES, { description: "Required unless a template supplies it (then it must match the template's)" })
  type?: AccountType;

  @ApiProperty({ description: 'Any currency name (fiat, token, POINTS); ticker-shaped names are uppercased' })
  @IsCurrency()
  currency: string;

  @OptionalIn(OVERDRAFT_POLICIES, { description: 'Default allowed, or none when the template is balance_non_negative' })
  overdraft_policy?: OverdraftPolicy;

  @ApiPropertyOptional({ description: 'With overdraft_policy none: how far below zero the available balance may go (default "0")' })
  @IsOptional()
  @IsMinorUnits(0)
  overdraft_limit?: string | number;

  @OptionalIn(ACCOUNT_KINDS)
  account_kind?: AccountKind;

  @OptionalText(1, 500)
  counterparty_ref?: string;

  @OptionalText(1, 200, { description: 'Name of an account template applied and checked before insert' })
  template?: string;

  @ApiPropertyOptional({ description: 'Parent account id, for category balances' })
  @IsOptional()
  @IsAccountId()
  parent_id?: string;

  @OptionalText(1, 200, { description: 'Pairs with ledgerable_id' })
  ledgerable_type?: string;

  @OptionalText(1, 200)
  ledgerable_id?: string;
}
