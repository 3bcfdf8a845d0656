import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class DeleteWorkspaceDto {
  @ApiProperty({ description: "The workspace's slug, typed again to confirm" })
  @IsString()
  @Length(1, 64)
  confirm: string;
}
