import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class BalanceQuery extends LedgerSelectionQuery {
  @OptionalInstant('Balance from postings with value_date at or before this instant')
  at?: string;
}

export class StatementQuery extends LedgerSelectionQuery {
  @OptionalInstant('Inclusive lower bound on value_date (default: the beginning)')
  from?: string;

  @OptionalInstant('Exclusive upper bound on value_date (default now)')
  to?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 5000, default: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(5000)
  limit = 500;
}
