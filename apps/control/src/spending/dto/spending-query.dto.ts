import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional } from 'class-validator';

export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export class SpendingQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the range, inclusive; default `to` minus 30 days' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'End of the range, exclusive; default now' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({ enum: GRANULARITIES, default: 'day', description: 'Timeline bucket size (UTC); hour covers at most 31 days' })
  @IsOptional()
  @IsIn(GRANULARITIES)
  granularity?: Granularity;
}
