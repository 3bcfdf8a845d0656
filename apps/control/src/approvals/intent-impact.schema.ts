import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The budget the intent draws on, and what a deny would return to it. */
class ImpactSessionSchema {
  @ApiProperty({ format: 'uuid', description: 'The budget id' }) id: string;
  @ApiProperty({ type: 'integer' }) budget_cents: number;
  @ApiProperty({ type: 'integer' }) spent_cents: number;
  @ApiProperty({ type: 'integer' }) remaining_cents: number;
  @ApiProperty({ type: 'integer', description: 'Reserved by this hold; 0 once resolved' }) returns_on_deny_cents: number;
  @ApiProperty({ type: 'integer', description: 'Other held intents on the same budget' }) open_holds: number;
}

class ImpactAgentSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['live', 'test'] }) mode: string;
  @ApiProperty({ type: [String] }) scopes: string[];
}

/** A spend window of the agent's policies and what it has used. */
class ImpactWindowSchema {
  @ApiProperty({ enum: ['velocity', 'monthly'] }) kind: string;
  @ApiProperty({ type: 'integer', nullable: true }) window_seconds: number | null;
  @ApiProperty({ type: 'integer' }) cap_cents: number;
  @ApiProperty({ type: 'integer' }) spent_cents: number;
  @ApiProperty({ type: 'integer' }) remaining_cents: number;
}

class ImpactSpendTokenSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer' }) amount_ceiling_cents: number;
  @ApiProperty({ type: String, nullable: true }) counterparty: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ enum: [true] }) single_use: boolean;
}

/** What approving an intent would do. */
export class IntentImpactSchema {
  @ApiProperty({ type: 'integer' }) amount_cents: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ type: String, nullable: true, description: 'The rule that held or denied it' }) rule: string | null;
  @ApiProperty({ description: 'True once completed or executed' }) executed: boolean;
  @ApiProperty({ type: ImpactSessionSchema }) session: ImpactSessionSchema;
  @ApiProperty({ type: ImpactAgentSchema }) agent: ImpactAgentSchema;
  @ApiProperty({ type: [ImpactWindowSchema] }) windows: ImpactWindowSchema[];
  @ApiPropertyOptional({ type: ImpactSpendTokenSchema, nullable: true, description: 'Payment intents only; null without a token' })
  spend_token?: ImpactSpendTokenSchema | null;
}
