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

  @ApiPropertyOptional({
    description:
      'Tail the log: answer oldest first from just after this event id (or a `next_cursor` of an earlier tail page). ' +
      'Only events no later commit can land behind are served, so polling with the id of the last event held never skips one; ' +
      'not with `cursor`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  after?: string;
}
