import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class FailedCountQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ description: 'ISO 8601 instant or relative age (`24h`, `7d`, `1h`); unparseable values are ignored' })
  @IsOptional()
  since?: string;
}
