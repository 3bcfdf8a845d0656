import { policyVersion } from '../policies/policy-snapshot';
import type { BacktestChangeRow, PolicyBacktest } from './policy-backtests.repository';

export function presentBacktest(b: PolicyBacktest) {
  return {
    object: 'policy_backtest' as const,
    id: b.id,
    agent_id: b.agent_id,
    mode: b.mode,
    from: b.from_at.toISOString(),
    to: b.to_at.toISOString(),
    policy: b.policy,
    policy_version: policyVersion([b.snapshot]),
    status: b.status,
    progress: b.progress,
    evaluated: b.evaluated,
    result: b.result,
    failure_reason: b.failure_reason,
    started_at: b.started_at?.toISOString() ?? null,
    completed_at: b.completed_at?.toISOString() ?? null,
    created_at: b.created_at.toISOString(),
  };
}

export function presentChange(c: BacktestChangeRow) {
  return {
    object: 'policy_backtest_change' as const,
    intent_id: c.intent_id,
    kind: c.kind,
    agent_id: c.agent_id,
    action_type: c.action_type,
    resource: c.resource,
    amount_cents: c.amount_cents,
    currency: c.currency,
    requested_at: c.requested_at.toISOString(),
    original: c.original,
    replayed: c.replayed,
  };
}
