import { ApiProperty } from '@nestjs/swagger';
import { INVALID_REASONS } from './cosign.service';

/** A cosignature check that passed. */
export class ValidCosignatureSchema {
  @ApiProperty({ enum: [true] }) valid: boolean;
  @ApiProperty({ type: String, nullable: true, enum: [null] }) reason: null;
  @ApiProperty({ format: 'uuid' }) intent_id: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty() action_type: string;
  @ApiProperty({ type: String, nullable: true }) resource: string | null;
  @ApiProperty({ type: 'integer' }) amount_cents: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ type: String, nullable: true }) policy_version: string | null;
  @ApiProperty({ type: String, nullable: true }) frame_hash: string | null;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

/** A cosignature check that failed (answered 422). */
export class InvalidCosignatureSchema {
  @ApiProperty({ enum: [false] }) valid: boolean;
  @ApiProperty({ enum: INVALID_REASONS }) reason: string;
}
