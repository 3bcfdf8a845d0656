import { ApiProperty } from '@nestjs/swagger';

/** Wire shape of an event, in the tail and as a webhook body (documentation only; presentEvent builds it). */
export class EventResponse {
  @ApiProperty({ enum: ['event'] }) object: 'event';
  @ApiProperty({ format: 'uuid', description: 'Stable: deduplicate deliveries on it' }) id: string;
  @ApiProperty({ example: 'transaction.created' }) type: string;
  @ApiProperty({ type: 'string', nullable: true }) resource_id: string | null;
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The resource as it was after the change' })
  data: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Same as data, for clients of the reference R1 revision' })
  payload: Record<string, unknown>;
  @ApiProperty() livemode: boolean;
}
