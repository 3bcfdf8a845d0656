import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { WORKSPACE_ROLES, WorkspaceRole } from '../../workspaces/workspace-roles';

export class UpdateMembershipDto {
  @ApiProperty({ enum: WORKSPACE_ROLES })
  @IsIn(WORKSPACE_ROLES)
  role: WorkspaceRole;
}
