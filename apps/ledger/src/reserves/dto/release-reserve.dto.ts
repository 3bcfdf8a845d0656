import { ApiProperty } from '@nestjs/swagger';
import { RequiredText } from '@bursar/service-kit';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { IsAccountId } from '../../accounts/account-id.validator';

class ReserveMoveDto {
  @ApiProperty({ description: "Integer minor units, at least 1; at most the reserve's available balance", pattern: '^\\d+$' })
  @IsMinorUnits(1)
  amount: string | number;

  @OptionalMetadata("Merged into the transaction's metadata")
  metadata?: Record<string, unknown>;
}

export class ReleaseReserveDto extends ReserveMoveDto {
  @ApiProperty({ description: 'Account the released funds go to, in the reserve currency' })
  @IsAccountId()
  target_account_id: string;
}

export class ClawReserveDto extends ReserveMoveDto {
  @ApiProperty({ description: 'Operator account that takes the clawed funds, in the reserve currency' })
  @IsAccountId()
  operator_account_id: string;

  @RequiredText(1, 200, { description: 'Why the funds are clawed; kept on the transaction and the event' })
  reason_code: string;
}
