import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

const INTENT_STATES = ['pending', 'held', 'completed', 'executed', 'failed', 'denied'];
const REMEDY_KINDS = [
  'lower_amount',
  'wait',
  'use_pinned_counterparty',
  'approve',
  'raise_budget',
  'reopen_budget',
  'create_policy',
  'new_spend_token',
  'allow_resource',
  'allow_action',
  'grant_scope',
];
const FREE_OBJECT = { type: 'object', additionalProperties: true } as const;

/** What the caller (or a person) can do about a denial or hold. */
export class RemedySchema {
  @ApiProperty({ enum: REMEDY_KINDS }) kind: string;
  @ApiProperty({ description: 'For people' }) summary: string;
  @ApiProperty({ type: 'integer', nullable: true }) max_cents: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) retry_after_seconds: number | null;
  @ApiProperty({ type: String, nullable: true }) resource: string | null;
  @ApiProperty({ type: String, nullable: true }) action_type: string | null;
}

/** A policy decision (reference s.4): the outcome, the rule that settled it and the remaining headroom. */
export class DecisionSchema {
  @ApiPropertyOptional({ format: 'uuid', description: 'Absent on simulations and previews' }) id?: string;
  @ApiProperty({ enum: ['allowed', 'denied', 'requires_approval'] }) outcome: string;
  @ApiProperty({ type: String, nullable: true, description: 'The rule that denied or held; null when allowed' }) rule: string | null;
  @ApiProperty(FREE_OBJECT) detail: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Cents (or counts) left per cap' })
  headroom: Record<string, number>;
  @ApiProperty({ type: 'array', items: FREE_OBJECT, description: 'The policies as evaluated: id, mode, imports, imported_rules, rules' })
  policy_snapshot: Record<string, unknown>[];
  @ApiProperty({ example: 'pv_...' }) policy_version: string;
  @ApiProperty({ example: 'fh_...' }) frame_hash: string;
  @ApiProperty({ type: RemedySchema, nullable: true }) remedy: RemedySchema | null;
}

/** Fields action and payment intents share. */
class IntentBaseSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspace_id: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty({ format: 'uuid' }) budget_id: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ enum: INTENT_STATES, description: 'held: awaiting approval' }) state: string;
  @ApiProperty({ type: String, nullable: true }) failure_reason: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The person who approved or denied' }) resolved_by_sub: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at: string | null;
  @ApiProperty() idempotency_key: string;
  @ApiProperty({ type: String, nullable: true }) trace_id: string | null;
  @ApiProperty({ type: String, nullable: true }) ledger_transaction_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** ActionIntent of reference s.4. */
export class ActionIntentSchema extends IntentBaseSchema {
  @ApiProperty({ example: 'llm.call' }) action_type: string;
  @ApiProperty({ type: String, nullable: true }) resource: string | null;
  @ApiProperty({ type: 'integer' }) cost_cents: number;
  @ApiProperty({ type: DecisionSchema }) decision: DecisionSchema;
  @ApiProperty(FREE_OBJECT) metadata: Record<string, unknown>;
}

/** PaymentIntent of reference s.5; decision_context is the caller's provenance with `decision` merged in. */
export class PaymentIntentSchema extends IntentBaseSchema {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) spend_token_id: string | null;
  @ApiProperty({ type: 'integer' }) amount_cents: number;
  @ApiProperty({ type: String, nullable: true }) counterparty: string | null;
  @ApiProperty({ ...FREE_OBJECT, description: 'The request\'s decision_context plus {decision}' }) decision_context: Record<string, unknown>;
}

const INTENT_REF = { oneOf: [{ $ref: getSchemaPath(ActionIntentSchema) }, { $ref: getSchemaPath(PaymentIntentSchema) }] };
const DATA_DESCRIPTION = 'An ActionIntent under action routes, a PaymentIntent under payment routes';

/** `{data: intent}` answered with `status`, for routes action and payment intents share. */
export const ApiIntentData = (status = 200) =>
  applyDecorators(
    ApiExtraModels(ActionIntentSchema, PaymentIntentSchema),
    ApiResponse({ status, schema: { type: 'object', required: ['data'], properties: { data: { ...INTENT_REF, description: DATA_DESCRIPTION } } } }),
  );

/** `{data: intent, decision, cosignature?}`, the answer of an authorization and of an agent's read. */
export const AUTHORIZATION_BODY = {
  type: 'object',
  required: ['data', 'decision'],
  properties: {
    data: { ...INTENT_REF, description: DATA_DESCRIPTION },
    decision: { $ref: getSchemaPath(DecisionSchema) },
    cosignature: { type: 'string', description: 'Compact ES256 JWS; present only while the intent is spendable and cosigning is on' },
  },
};

/** The queue: a page of intents plus `summary` over everything the filters match. */
export const ApiIntentQueue = () =>
  applyDecorators(
    ApiExtraModels(ActionIntentSchema, PaymentIntentSchema),
    ApiResponse({
      status: 200,
      schema: {
        type: 'object',
        required: ['data', 'has_more', 'next_cursor', 'summary'],
        properties: {
          data: { type: 'array', items: INTENT_REF, description: DATA_DESCRIPTION },
          has_more: { type: 'boolean', description: 'True whenever the page filled to limit, even on the last page' },
          next_cursor: { type: 'string', nullable: true, description: 'Pass back as starting_after' },
          summary: {
            type: 'object',
            required: ['total', 'total_cents'],
            properties: { total: { type: 'integer' }, total_cents: { type: 'integer', description: 'Sum of amount_cents over every match' } },
          },
        },
      },
    }),
  );

/** One field a replay recomputed differently. */
export class DecisionDifferenceSchema {
  @ApiProperty({ enum: ['outcome', 'rule', 'detail', 'remedy', 'headroom', 'policy_version', 'frame_hash', 'policy_snapshot'] }) field: string;
  @ApiProperty({ nullable: true, description: 'Any JSON value' }) original: unknown;
  @ApiProperty({ nullable: true, description: 'Any JSON value' }) replayed: unknown;
}

/** A recorded decision recomputed from its stored frame, pinned policy version and recorded counters. */
export class DecisionReplaySchema {
  @ApiProperty({ enum: ['decision_replay'] }) object: string;
  @ApiProperty({ format: 'uuid' }) intent_id: string;
  @ApiProperty({ example: 'pv_...', description: 'The version the decision pinned; used even after the live policy changed' }) policy_version: string;
  @ApiProperty({ example: 'fh_...', description: 'As recorded' }) frame_hash: string;
  @ApiProperty({ example: 'fh_...', description: 'Recomputed from the stored request (docs/receipts.md)' }) recomputed_frame_hash: string;
  @ApiProperty({ type: DecisionSchema }) original: DecisionSchema;
  @ApiProperty({ type: DecisionSchema }) replayed: DecisionSchema;
  @ApiProperty() matches: boolean;
  @ApiProperty({ type: [DecisionDifferenceSchema] }) differences: DecisionDifferenceSchema[];
}
