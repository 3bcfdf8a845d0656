import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { WORKSPACE_ROLES, WorkspaceRole } from '../../workspaces/workspace-roles';
import { Nullable } from '@bursar/service-kit';

export class CreateMembershipDto {
  @ApiProperty({ description: "The person's identity `sub`" })
  @IsString()
  @Length(1, 255)
  user_sub: string;

  @Nullable()
  @IsEmail()
  email?: string | null;

  @ApiPropertyOptional({ enum: WORKSPACE_ROLES, default: 'member' })
  @IsOptional()
  @IsIn(WORKSPACE_ROLES)
  role: WorkspaceRole = 'member';
}
