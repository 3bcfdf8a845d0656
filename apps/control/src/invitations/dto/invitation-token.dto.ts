import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

/** The one-time token of an invitation link, as a query parameter (lookup) or body field (accept). */
export class InvitationTokenDto {
  @ApiProperty()
  @IsString()
  @Length(1, 200)
  token: string;
}
