import type { Decision } from './decision';
import { frameOf } from './decision-inputs';
import { Intent } from './intent.entity';

/** An action intent as the reference shapes it. */
export function presentActionIntent(intent: Intent) {
  return {
    id: intent.id,
    ...frameOf(intent),
    state: intent.state,
    idempotency_key: intent.idempotency_key,
    trace_id: intent.trace_id,
    ledger_transaction_id: intent.ledger_transaction_id,
    failure_reason: intent.failure_reason,
    resolved_by_sub: intent.resolved_by_sub,
    resolved_at: intent.resolved_at,
    decision: intent.decision,
    created_at: intent.created_at,
    updated_at: intent.updated_at,
  };
}

/** A payment intent; `decision_context` echoes the caller's provenance with the decision merged in. */
export function presentPaymentIntent(intent: Intent) {
  return {
    id: intent.id,
    workspace_id: intent.workspace_id,
    agent_id: intent.agent_id,
    budget_id: intent.budget_id,
    spend_token_id: intent.spend_token_id,
    amount_cents: intent.amount_cents,
    currency: intent.currency,
    counterparty: intent.resource,
    state: intent.state,
    failure_reason: intent.failure_reason,
    resolved_by_sub: intent.resolved_by_sub,
    resolved_at: intent.resolved_at,
    idempotency_key: intent.idempotency_key,
    trace_id: intent.trace_id,
    ledger_transaction_id: intent.ledger_transaction_id,
    decision_context: { ...(intent.decision_context ?? {}), decision: intent.decision },
    created_at: intent.created_at,
    updated_at: intent.updated_at,
  };
}

export function presentIntent(intent: Intent) {
  return intent.kind === 'payment' ? presentPaymentIntent(intent) : presentActionIntent(intent);
}

/** Audit subject and action names per intent kind (reference s.13). */
export function auditNames(intent: Pick<Intent, 'kind'>) {
  return intent.kind === 'payment'
    ? { subject_type: 'PaymentIntent' as const, prefix: 'payment_intent', webhook: 'payment' }
    : { subject_type: 'ActionIntent' as const, prefix: 'action', webhook: 'action' };
}

export function decisionOf(intent: Intent): Decision {
  return intent.decision as unknown as Decision;
}
