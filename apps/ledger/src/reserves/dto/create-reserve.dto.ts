import { ApiProperty } from '@nestjs/swagger';
import { RequiredText } from '@bursar/service-kit';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { IsAccountId } from '../../accounts/account-id.validator';
import { IsCurrency } from '../../accounts/currency.validator';

export class CreateReserveDto {
  @ApiProperty({ description: 'Account the funds leave; its available balance must cover amount' })
  @IsAccountId()
  source_account_id: string;

  @RequiredText(1, 200, { description: 'Account template of the reserve account (type, classification, custody)' })
  template: string;

  @RequiredText(1, 500, { description: 'Whom the reserve is held for; one reserve account per (template, counterparty_ref, currency)' })
  counterparty_ref: string;

  @ApiProperty({ description: "Must equal the source account's currency (else 422 reserve_currency_mismatch)" })
  @IsCurrency()
  currency: string;

  @ApiProperty({ description: 'Integer minor units, at least 1', pattern: '^\\d+$' })
  @IsMinorUnits(1)
  amount: string | number;

  @OptionalInstant("Kept in the transaction's metadata only; nothing is released automatically")
  expires_at?: string;

  @OptionalMetadata("Merged into the transaction's metadata")
  metadata?: Record<string, unknown>;
}
