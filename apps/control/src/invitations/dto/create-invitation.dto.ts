import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, Length } from 'class-validator';
import { WORKSPACE_ROLES, WorkspaceRole } from '../../workspaces/workspace-roles';

export class CreateInvitationDto {
  @ApiProperty()
  @IsEmail()
  @Length(3, 320)
  email: string;

  @ApiPropertyOptional({ enum: WORKSPACE_ROLES, default: 'member' })
  @IsOptional()
  @IsIn(WORKSPACE_ROLES)
  role: WorkspaceRole = 'member';
}
