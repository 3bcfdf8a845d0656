import { ApiProperty } from '@nestjs/swagger';

export class AgentSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['active', 'suspended', 'revoked'] }) status: string;
  @ApiProperty({ enum: ['test', 'live'] }) mode: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ example: 'krt_test_9f3' }) api_key_prefix: string;
  @ApiProperty({ type: Number, nullable: true }) max_budget_cents: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class CreatedAgentSchema extends AgentSchema {
  @ApiProperty({ description: 'The agent key; shown only here, stored only as a digest' }) api_key: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'The starter policy, or null when skipped' })
  starter_policy: object | null;
}
