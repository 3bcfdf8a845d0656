import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class BalanceQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'Balance from postings with value_date at or before this instant' })
  @IsOptional()
  @IsInstant()
  at?: string;
}

export class StatementQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive lower bound on value_date (default: the beginning)' })
  @IsOptional()
  @IsInstant()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Exclusive upper bound on value_date (default now)' })
  @IsOptional()
  @IsInstant()
  to?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 5000, default: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(5000)
  limit = 500;
}
