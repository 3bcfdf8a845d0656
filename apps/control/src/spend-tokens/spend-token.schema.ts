import { ApiProperty } from '@nestjs/swagger';
import { SPEND_TOKEN_STATUSES } from './spend-token.entity';

export class SpendTokenSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty({ format: 'uuid' }) budget_id: string;
  @ApiProperty({ type: 'integer' }) amount_ceiling_cents: number;
  @ApiProperty({ type: String, nullable: true }) counterparty: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ description: 'Always true: a token authorizes one payment' }) single_use: boolean;
  @ApiProperty({ enum: SPEND_TOKEN_STATUSES }) status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) consumed_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
