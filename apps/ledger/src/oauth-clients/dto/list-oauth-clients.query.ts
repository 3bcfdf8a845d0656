import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { Mode, MODES } from '../../common/mode';

export class ListOauthClientsQuery {
  @IsOptional()
  @IsIn(MODES)
  mode?: Mode;

  /** Accepted for client compatibility; the list is always one page. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}
