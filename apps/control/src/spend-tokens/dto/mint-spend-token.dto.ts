import { ApiProperty } from '@nestjs/swagger';
import { IsDateString, IsInt, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { Nullable } from '@bursar/service-kit';

export class MintSpendTokenDto {
  @ApiProperty({ format: 'uuid', description: 'An active budget of this agent' })
  @IsUUID()
  budget_id: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Largest payment the token authorizes, in minor units' })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  amount_ceiling_cents: number;

  @Nullable({ description: 'Pins the token to this payee' })
  @IsString()
  @Length(1, 500)
  counterparty?: string | null;

  @Nullable({ format: 'date-time', description: 'Must lie in the future' })
  @IsDateString({ strict: true })
  expires_at?: string | null;
}
