import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsMinorUnits } from '../../balances/minor-units.validator';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { IsCurrency } from '../../accounts/currency.validator';

/** Body of reverse (all optional: no amount reverses the whole) and refund (amount required). */
export class CorrectionDto {
  @ApiPropertyOptional({ description: 'Part of the original gross in `currency` to give back; omit on reverse to undo it all' })
  @IsOptional()
  @IsMinorUnits(1)
  amount?: string | number;

  @ApiPropertyOptional({ description: 'Currency of amount; required when the original spans several' })
  @IsOptional()
  @IsCurrency()
  currency?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;
}
