import type { Agent } from '../agents/agent.entity';
import type { AuditEntry } from '../audit/audit.repository';
import { SpendToken, SpendTokenStatus } from './spend-token.entity';

/** An issued token past its expiry reads as `expired` even before a sweep rewrites its row. */
export function effectiveStatus(token: SpendToken, now = new Date()): SpendTokenStatus {
  return token.status === 'issued' && token.expires_at !== null && token.expires_at <= now ? 'expired' : token.status;
}

export function presentSpendToken(token: SpendToken) {
  return {
    id: token.id,
    agent_id: token.agent_id,
    budget_id: token.budget_id,
    amount_ceiling_cents: token.amount_ceiling_cents,
    counterparty: token.counterparty,
    expires_at: token.expires_at,
    // Every token authorizes one payment; the field is here for the impact summary's shape.
    single_use: true,
    status: effectiveStatus(token),
    consumed_at: token.consumed_at,
    created_at: token.created_at,
    updated_at: token.updated_at,
  };
}

/** The audit entry of something the agent did to its token (`spend_token.issued`, `spend_token.voided`). */
export function spendTokenAudit(agent: Agent, token: SpendToken, action: string, traceId: string): AuditEntry {
  return {
    subject_type: 'SpendToken',
    subject_id: token.id,
    action,
    trace_id: traceId,
    snapshot: presentSpendToken(token),
    actor: { type: 'agent', id: agent.id },
  };
}
