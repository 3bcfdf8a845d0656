import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { PageQuery } from '../../common/pagination';
import { OptionalIn } from '@bursar/service-kit';

export class ListLedgersQuery extends PageQuery {
  @OptionalIn(MODES, { description: "Only the token's mode has rows; the other mode lists nothing" })
  mode?: Mode;

  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false' })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_archived?: 'true' | 'false';
}
