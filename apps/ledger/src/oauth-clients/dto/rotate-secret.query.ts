import { IsIn, IsOptional } from 'class-validator';

export class RotateSecretQuery {
  /** `true` destroys the current secret at once instead of keeping it for 24 hours. */
  @IsOptional()
  @IsIn(['true', 'false'])
  force?: 'true' | 'false';
}
