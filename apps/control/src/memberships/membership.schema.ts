import { ApiProperty } from '@nestjs/swagger';
import { CAPABILITIES, WORKSPACE_ROLES } from '../workspaces/workspace-roles';

export class MembershipSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() user_sub: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role: string;
  @ApiProperty({ enum: CAPABILITIES, isArray: true }) capabilities: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
