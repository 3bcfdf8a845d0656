import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsInstant, OptionalInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery } from '../../common/pagination';
import { OptionalIn } from '@bursar/service-kit';

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
  @OptionalInstant('Postings with value_date at or before this instant (default now)')
  at?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Trial balance: keep accounts without postings' })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_zero?: 'true' | 'false';
}

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export class PeriodReportQuery extends ReportFormatQuery {
  @OptionalInstant('Inclusive start on value_date (default: the beginning)')
  from?: string;

  @OptionalInstant('Exclusive end on value_date (default now)')
  to?: string;

  @OptionalIn(GRANULARITIES, { description: 'Adds series[] buckets; needs from and to; at most 400 buckets' })
  granularity?: Granularity;
}

export class ReservesOutstandingQuery extends ReportFormatQuery {
  @OptionalInstant('Balances from postings with value_date at or before this instant (default now)')
  at?: string;
}

export class FundSegregationQuery extends ReportFormatQuery {
  @ApiPropertyOptional({
    description: 'A date (through the end of that UTC day) or an instant (at or before it) on value_date; default now',
    examples: ['2026-03-31', '2026-03-31T12:00:00Z'],
  })
  @IsOptional()
  @IsInstant()
  @Matches(/^\d{4}-\d{2}-\d{2}($|T)/, { message: 'value_date must be a date (YYYY-MM-DD) or a date-time' })
  value_date?: string;
}
