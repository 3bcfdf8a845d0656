import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../../common/pagination';

export class ListEventsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only events of this type, e.g. `transaction.created`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  type?: string;

  @ApiPropertyOptional({ description: 'Only events about this resource id' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  resource_id?: string;

  @ApiPropertyOptional({
    description:
      'Events at or after an ISO 8601 instant or a relative age `<n>{s|m|h|d}` (`24h`, `7d`, `30m`); unparseable values are ignored',
  })
  @IsOptional()
  since?: string;
}
