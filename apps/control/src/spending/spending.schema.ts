import { ApiProperty } from '@nestjs/swagger';

const OUTCOMES = ['allowed', 'requires_approval', 'denied'];

/** What one group of decisions adds up to, per outcome and currency. */
class SpendingFigureSchema {
  @ApiProperty({ enum: OUTCOMES, description: 'The outcome decided when the request arrived (a later approval or denial does not change it)' })
  outcome: string;

  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ type: 'integer', description: 'Decisions in the group' }) count: number;
  @ApiProperty({ type: 'integer', description: 'Requested amounts added up, in minor units' }) amount_cents: number;
}

export class SpendingTotalSchema extends SpendingFigureSchema {}

export class SpendingBucketSchema extends SpendingFigureSchema {
  @ApiProperty({ format: 'date-time', description: 'Start of the hour or day (UTC)' }) bucket: string;
}

export class SpendingAgentSchema extends SpendingFigureSchema {
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null once the agent is gone' }) agent_name: string | null;
}

export class SpendingRuleSchema extends SpendingFigureSchema {
  @ApiProperty({ description: 'The rule that denied or held the requests' }) rule: string;
}

export class SpendingSchema {
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty({ enum: ['hour', 'day'] }) granularity: string;
  @ApiProperty({ type: [SpendingTotalSchema] }) totals: SpendingTotalSchema[];
  @ApiProperty({ type: [SpendingBucketSchema], description: 'Buckets with at least one decision, oldest first' }) timeline: SpendingBucketSchema[];
  @ApiProperty({ type: [SpendingAgentSchema] }) agents: SpendingAgentSchema[];
  @ApiProperty({ type: [SpendingRuleSchema], description: 'Rules that denied or held, most decisions first' }) rules: SpendingRuleSchema[];
}
