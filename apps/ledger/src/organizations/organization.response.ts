import { ApiProperty } from '@nestjs/swagger';

/** Wire shape of an organization (documentation only; presentOrganization builds it). */
export class OrganizationResponse {
  @ApiProperty({ enum: ['organization'] }) object: 'organization';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'free' }) plan: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: 'string', nullable: true, description: 'Machine clients are not members: always null here' })
  viewer_role: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
