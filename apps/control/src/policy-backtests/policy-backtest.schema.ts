import { ApiProperty } from '@nestjs/swagger';
import { RemedySchema } from '../decisions/intent.schema';
import { BACKTEST_MODES } from './dto/policy-backtest-create.dto';

const FREE_OBJECT = { type: 'object', additionalProperties: true } as const;

/** How the two modes simulate, as the OpenAPI document tells callers. */
export const BACKTEST_DOC =
  'Re-decides the recorded decisions of `agent_id` (or of every agent) between `from` and `to` under the draft, which replaces ' +
  'every active policy of each agent. `independent`: each request against the counters recorded with it (budget, windows, spend ' +
  "token); a window only the draft has is measured over the recorded history. `sequential` (default): the draft's own outcomes " +
  'feed the budgets, windows and spend tokens of every later request. A request the draft newly allows or holds reserves its ' +
  'amount and counts in windows from its request time, as a live hold does, and is assumed approved and completed; one the draft ' +
  'denies stops counting until its recorded release (rejection, failure) would have freed it anyway; a request allowed or held ' +
  'under both keeps its recorded fate (approval, rejection, completion). A recorded race (a reservation that no longer fitted, a ' +
  'spend token another payment took) is lost again. A window covering at most 1,000 decisions answers 201 completed; a larger ' +
  'one answers 202 queued and runs on a queue (policy_backtest.completed is emitted to webhooks when it completes).';

class OutcomeTotalsSchema {
  @ApiProperty({ type: 'integer' }) allowed: number;
  @ApiProperty({ type: 'integer' }) requires_approval: number;
  @ApiProperty({ type: 'integer' }) denied: number;
}

class BeforeAfterSchema {
  @ApiProperty({ type: OutcomeTotalsSchema, description: 'As recorded' }) before: OutcomeTotalsSchema;
  @ApiProperty({ type: OutcomeTotalsSchema, description: 'Under the draft' }) after: OutcomeTotalsSchema;
}

class RuleCountSchema {
  @ApiProperty() rule: string;
  @ApiProperty({ type: 'integer' }) count: number;
}

class BacktestResultSchema {
  @ApiProperty({ type: 'integer', description: 'Decisions evaluated' }) evaluated: number;
  @ApiProperty({ type: 'integer', description: 'Decisions whose outcome, rule or remedy changed' }) changed: number;
  @ApiProperty({ type: BeforeAfterSchema, description: 'Decisions by outcome' }) totals: BeforeAfterSchema;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/BeforeAfterSchema' },
    description: 'Per currency: the amounts (minor units) that were / would have been allowed, held, denied',
  })
  amounts: Record<string, BeforeAfterSchema>;
  @ApiProperty({ type: [RuleCountSchema], description: 'The rules that settled most decisions under the draft, most first (at most 10)' })
  top_rules: RuleCountSchema[];
}

export class PolicyBacktestSchema {
  @ApiProperty({ enum: ['policy_backtest'] }) object: 'policy_backtest';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Null: every agent of the workspace' }) agent_id: string | null;
  @ApiProperty({ enum: BACKTEST_MODES }) mode: string;
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
  @ApiProperty(FREE_OBJECT) policy: Record<string, unknown>;
  @ApiProperty({ example: 'pv_...', description: 'Version of the draft as evaluated' }) policy_version: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed'] }) status: string;
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1 }) progress: number;
  @ApiProperty({ type: 'integer', description: 'Decisions evaluated so far' }) evaluated: number;
  @ApiProperty({ type: BacktestResultSchema, nullable: true, description: 'Set once completed' }) result: BacktestResultSchema | null;
  @ApiProperty({ type: String, nullable: true }) failure_reason: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** The part of a decision a backtest compares and reports. */
class BacktestDecisionSchema {
  @ApiProperty({ enum: ['allowed', 'denied', 'requires_approval'] }) outcome: string;
  @ApiProperty({ type: String, nullable: true }) rule: string | null;
  @ApiProperty(FREE_OBJECT) detail: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' } }) headroom: Record<string, number>;
  @ApiProperty({ type: RemedySchema, nullable: true }) remedy: RemedySchema | null;
  @ApiProperty({ example: 'pv_...' }) policy_version: string;
}

export class PolicyBacktestChangeSchema {
  @ApiProperty({ enum: ['policy_backtest_change'] }) object: 'policy_backtest_change';
  @ApiProperty({ format: 'uuid', description: 'The intent; pass as starting_after' }) intent_id: string;
  @ApiProperty({ enum: ['action', 'payment'] }) kind: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty() action_type: string;
  @ApiProperty({ type: String, nullable: true }) resource: string | null;
  @ApiProperty({ type: 'integer' }) amount_cents: number;
  @ApiProperty() currency: string;
  @ApiProperty({ format: 'date-time' }) requested_at: string;
  @ApiProperty({ type: BacktestDecisionSchema, description: 'As recorded (frame_hash included)' }) original: BacktestDecisionSchema;
  @ApiProperty({ type: BacktestDecisionSchema, description: 'Under the draft' }) replayed: BacktestDecisionSchema;
}
