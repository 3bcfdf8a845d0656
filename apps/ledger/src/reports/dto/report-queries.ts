import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class ReportFormatQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ enum: ['json', 'csv'], description: 'csv answers text/csv; an Accept header wins over it' })
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';

  @ApiPropertyOptional({ description: 'Only accounts of this currency' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  currency?: string;
}

export class PointInTimeQuery extends ReportFormatQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'Postings with value_date at or before this instant (default now)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  at?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Trial balance: keep accounts without postings' })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_zero?: 'true' | 'false';
}

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export class PeriodReportQuery extends ReportFormatQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive start on value_date (default: the beginning)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Exclusive end on value_date (default now)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({ enum: GRANULARITIES, description: 'Adds series[] buckets; needs from and to; at most 400 buckets' })
  @IsOptional()
  @IsIn(GRANULARITIES)
  granularity?: Granularity;
}
