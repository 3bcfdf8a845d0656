import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { PageQuery } from '../../common/pagination';

export class ListOauthClientsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: MODES, description: "Only the token's mode has clients; the other mode lists nothing" })
  @IsOptional()
  @IsIn(MODES)
  mode?: Mode;
}
