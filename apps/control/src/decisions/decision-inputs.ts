import type { AgentMode } from '../agents/agent-key';
import type { BudgetStatus } from '../budgets/budget.entity';
import type { WindowSpec, WindowUsage } from '../policies/policy-compiler';
import type { SpendToken, SpendTokenStatus } from '../spend-tokens/spend-token.entity';
import { effectiveStatus } from '../spend-tokens/spend-token.presenter';
import type { EvaluatedAction } from './decision';
import type { Intent } from './intent.entity';

/** The budget figures a decision reads. */
export interface BudgetCounters {
  status: BudgetStatus;
  budget_cents: number;
  spent_cents: number;
  reserved_cents: number;
}

/** One window's spend and count as measured for a decision, with the window it measured (so a draft can find it). */
export interface RecordedWindow extends WindowUsage {
  kind: WindowSpec['kind'];
  window_seconds: number | null;
  /** LIKE patterns over action_type; null counts every action. */
  action_patterns: string[] | null;
  /** Start of the window (ms). */
  since: number;
}

/** The spend token a payment cited, as the decision saw it. */
export interface TokenCounters {
  id: string;
  /** Effective at `now`: an expired token reads `expired` whatever its row says. */
  status: SpendTokenStatus;
  amount_ceiling_cents: number;
  counterparty: string | null;
}

/**
 * Everything the engine reads besides the policies and the request frame: with these, a decision is
 * a pure function of (policy snapshot, frame, counters).
 */
export interface DecisionCounters {
  /** The engine's "now" (ms). */
  now: number;
  agent: { mode: AgentMode; scopes: string[] };
  budget: BudgetCounters;
  /** One per `compiled.windows` entry of the policies decided under, in order. */
  windows: RecordedWindow[];
  spend_token: TokenCounters | null;
}

/** What happened after the engine: figures only the reservation and the token spend could know. */
export interface Settlement {
  /** Budget remaining just before this intent's reservation: the decision's session headroom. */
  reserved_before_cents?: number;
  /** The budget as re-read when the reservation no longer fitted: the decision became its denial. */
  refused_budget?: BudgetCounters;
  /** Another payment spent the cited token first. */
  lost_token?: true;
}

/** `intents.decision_inputs`: the counters a decision read and its settlement. */
export interface RecordedInputs extends DecisionCounters {
  settlement: Settlement | null;
}

/** The counters of a window list as measured at `now`. */
export function recordedWindows(windows: WindowSpec[], usage: WindowUsage[], now: number): RecordedWindow[] {
  return windows.map((w, i) => ({
    kind: w.kind,
    window_seconds: w.window_seconds,
    action_patterns: w.likePatterns,
    since: w.since(now),
    spent_cents: usage[i].spent_cents,
    count: usage[i].count,
    oldest_at: usage[i].oldest_at,
  }));
}

export function tokenCounters(token: SpendToken, now: number): TokenCounters {
  return { id: token.id, status: effectiveStatus(token, new Date(now)), amount_ceiling_cents: token.amount_ceiling_cents, counterparty: token.counterparty };
}

/** The columns of an intent that say what was asked: what the engine evaluates and a cosignature asserts. */
export type IntentFrame = Pick<Intent, 'workspace_id' | 'agent_id' | 'budget_id' | 'action_type' | 'resource' | 'amount_cents' | 'currency'>;

/** The request frame of a recorded intent: its own columns, as the engine evaluated them. */
export function frameOf(intent: IntentFrame & Pick<Intent, 'metadata'>): EvaluatedAction {
  return {
    workspace_id: intent.workspace_id,
    agent_id: intent.agent_id,
    budget_id: intent.budget_id,
    action_type: intent.action_type,
    resource: intent.resource,
    cost_cents: intent.amount_cents,
    currency: intent.currency,
    metadata: intent.metadata,
  };
}
