import { ApiProperty } from '@nestjs/swagger';
import { WORKSPACE_ROLES } from '../workspaces/workspace-roles';

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

export class InvitationLookupSchema {
  @ApiProperty() workspace_name: string;
  @ApiProperty() workspace_slug: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ description: "The caller's email, or their sub when the token carries no email" }) signed_in_as: string;
  @ApiProperty({ description: "Whether the caller's email is the invited address" }) matches_account: boolean;
  @ApiProperty() already_member: boolean;
}

export class AcceptedInvitationSchema {
  @ApiProperty() workspace_slug: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role: string;
}
