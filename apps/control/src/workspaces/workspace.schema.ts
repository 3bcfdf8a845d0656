import { ApiProperty } from '@nestjs/swagger';
import { CAPABILITIES, WORKSPACE_ROLES } from './workspace-roles';

export class WorkspaceSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() slug: string;
  @ApiProperty({ enum: WORKSPACE_ROLES, description: "The caller's role" }) role: string;
  @ApiProperty({ enum: CAPABILITIES, isArray: true }) capabilities: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
