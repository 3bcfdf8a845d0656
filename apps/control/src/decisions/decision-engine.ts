import type { Agent } from '../agents/agent.entity';
import type { Budget } from '../budgets/budget.entity';
import { remainingCents } from '../budgets/budgets.service';
import type { LoadedPolicies } from '../policies/policy-engine.service';
import type { Verdict, WindowUsage } from '../policies/policy-compiler';
import type { SpendToken } from '../spend-tokens/spend-token.entity';
import { effectiveStatus } from '../spend-tokens/spend-tokens.service';
import { Decision, EvaluatedAction, frameHash } from './decision';
import { formatCents, lowerOrWait, remedy } from './remedies';

export interface DecisionInput {
  action: EvaluatedAction;
  agent: Pick<Agent, 'id' | 'mode' | 'scopes'>;
  budget: Pick<Budget, 'status' | 'budget_cents' | 'spent_cents' | 'reserved_cents'>;
  policies: LoadedPolicies;
  usage: WindowUsage[];
  /** The spend token a payment cites, already found to be this agent's and this budget's. */
  token: SpendToken | null;
  now: Date;
}

type Refusal = Pick<Verdict, 'rule' | 'detail' | 'remedy'>;

/** Exact types, namespaces (`payment.*`) or `*`; no scopes means unrestricted. */
export function scopeCovers(scopes: string[], actionType: string): boolean {
  if (scopes.length === 0) return true;
  return scopes.some((s) => s === '*' || s === actionType || (s.endsWith('.*') && actionType.startsWith(s.slice(0, -1))));
}

function tokenRefusal(token: SpendToken, action: EvaluatedAction, now: Date): Refusal | null {
  const status = effectiveStatus(token, now);
  if (status !== 'issued') {
    return {
      rule: 'spend_token_unusable',
      detail: { spend_token_id: token.id, status },
      remedy: remedy('new_spend_token', `Spend token is ${status}; mint a new one`),
    };
  }
  if (action.cost_cents > token.amount_ceiling_cents) {
    return {
      rule: 'spend_token_ceiling',
      detail: { spend_token_id: token.id, limit_cents: token.amount_ceiling_cents, requested_cents: action.cost_cents },
      remedy: remedy('lower_amount', `The spend token allows at most ${formatCents(token.amount_ceiling_cents, action.currency)}`, {
        max_cents: token.amount_ceiling_cents,
      }),
    };
  }
  if (token.counterparty !== null && token.counterparty !== action.resource) {
    return {
      rule: 'spend_token_counterparty',
      detail: { spend_token_id: token.id, counterparty: token.counterparty, requested: action.resource },
      remedy: remedy('use_pinned_counterparty', `The spend token only pays ${token.counterparty}`, { resource: token.counterparty }),
    };
  }
  return null;
}

/** Checks that hold whatever the policy says: the budget is open, the key's scopes cover the action, it fits. */
function intrinsicRefusal(input: DecisionInput, remaining: number): Refusal | null {
  const { action, agent, budget } = input;
  if (budget.status !== 'active') return inactiveRefusal(action.budget_id, budget.status);
  if (!scopeCovers(agent.scopes, action.action_type)) {
    return {
      rule: 'runtime_scope',
      detail: { action_type: action.action_type, scopes: agent.scopes },
      remedy: remedy('grant_scope', `The agent's scopes do not cover ${action.action_type}`, { action_type: action.action_type }),
    };
  }
  if (action.cost_cents > remaining) return sessionBudgetRefusal(action, remaining);
  if (input.policies.snapshots.length === 0) {
    return { rule: 'no_policy', detail: {}, remedy: remedy('create_policy', 'The agent has no active policy, so everything is denied') };
  }
  return null;
}

/** An exhausted budget needs more money from a person; a closed one needs a new budget. */
export function inactiveRefusal(budgetId: string, status: string): Refusal {
  return {
    rule: 'session_inactive',
    detail: { budget_id: budgetId, status },
    remedy:
      status === 'exhausted'
        ? remedy('raise_budget', 'The budget is used up; a person must fund a new one')
        : remedy('reopen_budget', `The budget is ${status}; open a new one`),
  };
}

export function sessionBudgetRefusal(action: EvaluatedAction, remaining: number): Refusal {
  return {
    rule: 'session_budget',
    detail: { requested_cents: action.cost_cents, remaining_cents: remaining },
    remedy:
      remaining > 0
        ? lowerOrWait(remaining, action.currency, null, 'budget')
        : remedy('raise_budget', 'The budget has nothing left; a person must fund a new one'),
  };
}

/**
 * The decision, in the reference's order: a cited spend token first (its refusal ends evaluation),
 * then the always-on checks, then `no_policy`, then the policies (first deny wins, holds only when
 * nothing denies). Headroom is measured before any reservation.
 */
export function decide(input: DecisionInput): Decision {
  const { action, policies } = input;
  const remaining = remainingCents(input.budget as Budget);
  const base = { policy_snapshot: policies.snapshots, policy_version: policies.version, frame_hash: frameHash(action) };
  const refused = (r: Refusal, headroom: Record<string, number>): Decision => ({
    outcome: 'denied',
    ...r,
    headroom,
    ...base,
  });
  const sessionHeadroom = { session_remaining_cents: remaining };
  const tokenRefused = input.token && tokenRefusal(input.token, action, input.now);
  if (tokenRefused) return refused(tokenRefused, sessionHeadroom);
  const intrinsic = intrinsicRefusal(input, remaining);
  if (intrinsic) return refused(intrinsic, sessionHeadroom);
  const verdict = policies.compiled.evaluate({
    subject: { ...action, agent_mode: input.agent.mode },
    usage: input.usage,
    now: input.now.getTime(),
  });
  return { ...verdict, headroom: { ...verdict.headroom, ...sessionHeadroom }, ...base };
}
