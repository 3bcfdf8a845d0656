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

export class MembershipSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() user_sub: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role: string;
  @ApiProperty({ enum: CAPABILITIES, isArray: true }) capabilities: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class InvitationSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role: string;
  @ApiProperty({ enum: ['open', 'accepted', 'revoked', 'expired'] }) status: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class CreatedInvitationSchema extends InvitationSchema {
  @ApiProperty({ description: 'One-time token for the accept link; shown only here' }) token: string;
}
