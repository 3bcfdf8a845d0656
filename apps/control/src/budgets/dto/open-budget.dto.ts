import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsUUID, Matches, Max, Min } from 'class-validator';
import { Nullable } from '@bursar/service-kit';

export class OpenBudgetDto {
  @ApiProperty({ type: 'integer', minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  budget_cents: number;

  /** Defaults to the parent's currency, or USD for a top-level budget. */
  @ApiPropertyOptional({ pattern: '^[A-Z]{3}$', default: 'USD' })
  @IsOptional()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be a three-letter ISO code in capitals' })
  currency?: string;

  /** A budget of this same agent to reserve the headroom from. */
  @Nullable({ format: 'uuid' })
  @IsUUID()
  parent_budget_id?: string | null;
}
