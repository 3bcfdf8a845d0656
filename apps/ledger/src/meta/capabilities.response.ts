import { ApiProperty } from '@nestjs/swagger';

/** Wire shape of GET /_meta/capabilities (documentation only; describeCapabilities builds it). */
export class CapabilitiesResponse {
  @ApiProperty({ enum: ['capabilities'] }) object: 'capabilities';
  @ApiProperty({ description: 'Calendar version of this document' }) ledger_capabilities_version: string;
  @ApiProperty({ enum: ['v1'] }) api_version: string;
  @ApiProperty({ description: 'Release of the service (reference R1 field)' }) release: string;
  @ApiProperty() engine: string;
  @ApiProperty({ enum: ['active', 'suspended'] }) tenant_status: string;
  @ApiProperty() plan: string;
  @ApiProperty({ description: 'The plan allows live-mode writes' }) live_mode: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'boolean' } }) features: Record<string, boolean>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'hierarchy, many_ledgers_per_org, modes_per_org, mode_lives_on' })
  organization_model: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) conditional_posting: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Hard limits' }) limits: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: true }) guarantees: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) money_representation: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) consistency: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) time: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'available, strategies' }) reconciliation: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) pagination: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) auth: Record<string, unknown>;
}
