import { remainingCents } from '../budgets/budget-remaining';
import { matchesActionType } from '../policies/action-types';
import type { LoadedPolicies } from '../policies/policy-engine.service';
import type { Verdict } from '../policies/policy-compiler';
import { Decision, EvaluatedAction, frameHash } from './decision';
import { DecisionCounters, RecordedInputs, Settlement, TokenCounters } from './decision-inputs';
import { formatCents, lowerOrWait, remedy } from './remedies';

type Refusal = Pick<Verdict, 'rule' | 'detail' | 'remedy'>;

function tokenRefusal(token: TokenCounters, action: EvaluatedAction): Refusal | null {
  const { status } = token;
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
function intrinsicRefusal(policies: LoadedPolicies, action: EvaluatedAction, { agent, budget }: DecisionCounters, remaining: number): Refusal | null {
  if (budget.status !== 'active') return inactiveRefusal(action.budget_id, budget.status);
  // No scopes means unrestricted, as for any action-type list.
  if (!matchesActionType(agent.scopes, action.action_type)) {
    return {
      rule: 'runtime_scope',
      detail: { action_type: action.action_type, scopes: agent.scopes },
      remedy: remedy('grant_scope', `The agent's scopes do not cover ${action.action_type}`, { action_type: action.action_type }),
    };
  }
  if (action.cost_cents > remaining) return sessionBudgetRefusal(action, remaining);
  if (policies.snapshots.length === 0) {
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
 * nothing denies). Headroom is measured before any reservation. Pure: no I/O and no clock, so a
 * recorded decision is recomputed from its policy version, frame and counters.
 */
export function decide(policies: LoadedPolicies, action: EvaluatedAction, counters: DecisionCounters): Decision {
  return { ...decideVerdict(policies, action, counters), policy_snapshot: policies.snapshots, policy_version: policies.version, frame_hash: frameHash(action) };
}

/** A decision without its receipt fields (snapshot, version, frame hash). */
export type DecisionVerdict = Omit<Decision, 'id' | 'policy_snapshot' | 'policy_version' | 'frame_hash'>;

/** `decide` without hashing the frame: backtests compare millions of verdicts and need no receipt. */
export function decideVerdict(policies: LoadedPolicies, action: EvaluatedAction, counters: DecisionCounters): DecisionVerdict {
  const remaining = remainingCents(counters.budget);
  const refused = (r: Refusal, headroom: Record<string, number>): DecisionVerdict => ({ outcome: 'denied', ...r, headroom });
  const sessionHeadroom = { session_remaining_cents: remaining };
  const tokenRefused = counters.spend_token && tokenRefusal(counters.spend_token, action);
  if (tokenRefused) return refused(tokenRefused, sessionHeadroom);
  const intrinsic = intrinsicRefusal(policies, action, counters, remaining);
  if (intrinsic) return refused(intrinsic, sessionHeadroom);
  const verdict = policies.compiled.evaluate({
    subject: { ...action, agent_mode: counters.agent.mode },
    usage: counters.windows,
    now: counters.now,
  });
  return { ...verdict, headroom: { ...verdict.headroom, ...sessionHeadroom } };
}

function denial<D extends DecisionVerdict>(decision: D, r: Refusal): D {
  return { ...decision, outcome: 'denied', rule: r.rule, detail: r.detail, remedy: r.remedy };
}

/** The decision as recorded once the reservation and the token spend settled (see `Settlement`). */
export function applySettlement<D extends DecisionVerdict>(decision: D, action: EvaluatedAction, counters: DecisionCounters, settlement: Settlement | null): D {
  if (!settlement) return decision;
  const { refused_budget: refusedBudget, reserved_before_cents: before } = settlement;
  if (refusedBudget) {
    const remaining = remainingCents(refusedBudget);
    const refusal = refusedBudget.status !== 'active' ? inactiveRefusal(action.budget_id, refusedBudget.status) : sessionBudgetRefusal(action, remaining);
    return denial({ ...decision, headroom: { ...decision.headroom, session_remaining_cents: remaining } }, refusal);
  }
  const settled = before === undefined ? decision : { ...decision, headroom: { ...decision.headroom, session_remaining_cents: before } };
  if (!settlement.lost_token) return settled;
  // The reference records the loser of a token race as a failed intent, its reservation released.
  return denial(settled, {
    rule: 'spend_token_unusable',
    detail: { spend_token_id: counters.spend_token?.id, status: 'consumed' },
    remedy: remedy('new_spend_token', 'Another payment spent this token first; mint a new one'),
  });
}

/** A recorded decision recomputed from what it read: `intents.decision` again, bit for bit. */
export function replayDecision(policies: LoadedPolicies, action: EvaluatedAction, recorded: RecordedInputs): Decision {
  return applySettlement(decide(policies, action, recorded), action, recorded, recorded.settlement);
}
