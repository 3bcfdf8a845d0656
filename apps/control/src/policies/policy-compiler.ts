import { formatCents, lowerOrWait, lowerTo, Remedy, remedy } from '../decisions/remedies';
import { actionTypeLikePatterns, actionTypeMatcher } from './action-types';
import { compileCondition, ConditionSubject } from './policy-conditions';
import { PolicyRule } from './policy-rules';

/** A policy as a decision reads it: its own rules (typed columns desugared) and its modules' rules. */
export interface PolicySnapshot {
  id: string;
  mode: 'blocklist' | 'allowlist';
  imports: string[];
  imported_rules: PolicyRule[];
  rules: PolicyRule[];
}

/** A rolling (or calendar-month) window whose spend and count the caller measures before evaluating. */
export interface WindowSpec {
  kind: 'velocity' | 'monthly' | 'rate';
  /** Null for the calendar month. */
  window_seconds: number | null;
  /** Spend cap of the window; null for a count limit. */
  cap_cents: number | null;
  /** Start of the window for a decision made at `now` (ms). */
  since(now: number): number;
  /** The rule's action types (see action-types.ts); empty counts every action. */
  actionTypes: string[];
  /** `actionTypes` as SQL LIKE patterns over action_type (null counts every action), made once here. */
  likePatterns: string[] | null;
}

export interface WindowUsage {
  spent_cents: number;
  count: number;
  /** Oldest counted intent in the window (ms), to say when room frees up. */
  oldest_at: number | null;
}

export interface EvaluationInput {
  subject: ConditionSubject;
  usage: WindowUsage[];
  now: number;
}

export interface Verdict {
  outcome: 'allowed' | 'denied' | 'requires_approval';
  rule: string | null;
  detail: Record<string, unknown>;
  remedy: Remedy | null;
  headroom: Record<string, number>;
}

interface Hit {
  effect: 'deny' | 'hold' | 'allow';
  rule: string;
  detail: Record<string, unknown>;
  remedy: Remedy | null;
}

type Headroom = Record<string, number>;
type RuleCheck = (input: EvaluationInput, headroom: Headroom) => Hit | undefined;

export interface CompiledPolicies {
  windows: WindowSpec[];
  evaluate(input: EvaluationInput): Verdict;
}

const ALLOW_HIT_DETAIL = Object.freeze({});

function tighten(headroom: Headroom, key: string, value: number): void {
  const current = headroom[key];
  if (current === undefined || value < current) headroom[key] = value;
}

/** What a windowed rule measures: its action types, in both forms. */
const measured = (rule: PolicyRule) => ({ actionTypes: rule.action_types, likePatterns: actionTypeLikePatterns(rule.action_types) });

function startOfMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

function retryAfter(usage: WindowUsage, windowSeconds: number, now: number): number {
  if (usage.oldest_at === null) return windowSeconds;
  return Math.max(1, Math.ceil((usage.oldest_at + windowSeconds * 1000 - now) / 1000));
}

const deny = (rule: string, detail: Record<string, unknown>, r: Remedy | null): Hit => ({ effect: 'deny', rule, detail, remedy: r });

/** Builds the closure for one rule; windowed kinds register the window they need measured. */
function compileRule(rule: PolicyRule, windows: WindowSpec[]): RuleCheck {
  const name = rule.rule_name;
  const max = rule.max_cents ?? 0;
  switch (rule.kind) {
    case 'cost_cap':
      return ({ subject }, headroom) => {
        tighten(headroom, 'per_action_cap_cents', max);
        if (subject.cost_cents <= max) return undefined;
        // A per-action cap is never used up, so even a cap of 0 is met by a lower amount, not by waiting.
        return deny(name, { limit_cents: max, requested_cents: subject.cost_cents }, lowerTo(max, subject.currency, `per-action cap of ${formatCents(max, subject.currency)}`));
      };
    case 'spend_window': {
      const seconds = rule.window_seconds as number;
      const index =
        windows.push({ kind: 'velocity', window_seconds: seconds, cap_cents: max, since: (now) => now - seconds * 1000, ...measured(rule) }) - 1;
      return ({ subject, usage, now }, headroom) => {
        const used = usage[index];
        const left = Math.max(0, max - used.spent_cents);
        tighten(headroom, 'velocity_remaining_cents', left);
        if (subject.cost_cents === 0 || used.spent_cents + subject.cost_cents <= max) return undefined;
        return deny(
          name,
          { limit_cents: max, window_seconds: seconds, spent_cents: used.spent_cents, requested_cents: subject.cost_cents },
          lowerOrWait(left, subject.currency, retryAfter(used, seconds, now), `${seconds}-second spend window`),
        );
      };
    }
    case 'monthly_spend_cap': {
      const index = windows.push({ kind: 'monthly', window_seconds: null, cap_cents: max, since: startOfMonth, ...measured(rule) }) - 1;
      return ({ subject, usage }, headroom) => {
        const used = usage[index];
        const left = Math.max(0, max - used.spent_cents);
        tighten(headroom, 'monthly_remaining_cents', left);
        if (subject.cost_cents === 0 || used.spent_cents + subject.cost_cents <= max) return undefined;
        return deny(name, { limit_cents: max, spent_cents: used.spent_cents, requested_cents: subject.cost_cents }, lowerOrWait(left, subject.currency, null, 'monthly cap'));
      };
    }
    case 'rate_limit': {
      const seconds = rule.window_seconds as number;
      const maxActions = rule.max_actions as number;
      const index =
        windows.push({ kind: 'rate', window_seconds: seconds, cap_cents: null, since: (now) => now - seconds * 1000, ...measured(rule) }) - 1;
      return ({ usage, now }, headroom) => {
        const used = usage[index];
        tighten(headroom, 'rate_remaining_actions', Math.max(0, maxActions - used.count));
        if (used.count < maxActions) return undefined;
        const wait = retryAfter(used, seconds, now);
        return deny(
          name,
          { max_actions: maxActions, window_seconds: seconds, count: used.count },
          remedy('wait', `At most ${maxActions} actions per ${seconds} seconds; retry in ${wait} seconds`, { retry_after_seconds: wait }),
        );
      };
    }
    case 'approval_threshold': {
      const above = rule.above_cents as number;
      return ({ subject }) => {
        if (subject.cost_cents <= above) return undefined;
        return {
          effect: 'hold',
          rule: name,
          detail: { threshold_cents: above, requested_cents: subject.cost_cents },
          remedy: remedy('approve', `A person must approve amounts above ${formatCents(above, subject.currency)}`, { max_cents: above }),
        };
      };
    }
    case 'action_allowlist': {
      const allowed = actionTypeMatcher(rule.allow as string[]);
      const list = rule.allow as string[];
      if (list.length === 0) return () => undefined;
      return ({ subject }) => {
        if (allowed(subject.action_type)) return { effect: 'allow', rule: name, detail: ALLOW_HIT_DETAIL, remedy: null };
        return deny(name, { action_type: subject.action_type, allowed: list }, remedy('allow_action', `${subject.action_type} is not on the allowed action list`, { action_type: subject.action_type }));
      };
    }
    case 'resource_allowlist': {
      const list = rule.allow as string[];
      const allowed = new Set(list);
      // An empty list is a no-op, so an unfinished allowlist never locks an agent out.
      if (list.length === 0) return () => undefined;
      return ({ subject }) => {
        if (subject.resource !== null && allowed.has(subject.resource)) return { effect: 'allow', rule: name, detail: ALLOW_HIT_DETAIL, remedy: null };
        return deny(
          name,
          { resource: subject.resource, allowed: list },
          remedy('allow_resource', `${subject.resource ?? 'A missing resource'} is not on the allowed list`, { resource: subject.resource }),
        );
      };
    }
    case 'condition': {
      const matches = compileCondition(rule.when as NonNullable<PolicyRule['when']>);
      const effect = rule.effect ?? 'deny';
      const hit: Hit = {
        effect: effect === 'require_approval' ? 'hold' : effect,
        rule: name,
        detail: { effect },
        remedy: null,
      };
      return ({ subject }) => (matches(subject) ? hit : undefined);
    }
  }
}

interface CompiledPolicy {
  id: string;
  allowlist: boolean;
  rules: { applies: (actionType: string) => boolean; check: RuleCheck }[];
}

/**
 * Turns policy snapshots into closures once; a decision then runs them in order. First deny wins,
 * a hold applies only when nothing denies, `allow` never overrides a deny, and each allowlist-mode
 * policy is its own gate that some allow must open.
 */
export function compilePolicies(snapshots: PolicySnapshot[]): CompiledPolicies {
  const windows: WindowSpec[] = [];
  const policies: CompiledPolicy[] = snapshots.map((p) => ({
    id: p.id,
    allowlist: p.mode === 'allowlist',
    rules: [...p.imported_rules, ...p.rules].map((rule) => ({
      applies: actionTypeMatcher(rule.kind === 'action_allowlist' ? [] : rule.action_types),
      check: compileRule(rule, windows),
    })),
  }));
  return {
    windows,
    evaluate(input: EvaluationInput): Verdict {
      const headroom: Headroom = {};
      let hold: Hit | undefined;
      for (const policy of policies) {
        let opened = false;
        for (const rule of policy.rules) {
          if (!rule.applies(input.subject.action_type)) continue;
          const hit = rule.check(input, headroom);
          if (hit === undefined) continue;
          if (hit.effect === 'deny') return { outcome: 'denied', rule: hit.rule, detail: hit.detail, remedy: hit.remedy, headroom };
          if (hit.effect === 'hold') hold ??= hit;
          else opened = true;
        }
        if (policy.allowlist && !opened) {
          const actionType = input.subject.action_type;
          return {
            outcome: 'denied',
            rule: 'not_allowlisted',
            detail: { policy_id: policy.id, action_type: actionType, resource: input.subject.resource },
            remedy: remedy('allow_action', `No allow rule of this allowlist policy matches ${actionType}`, { action_type: actionType }),
            headroom,
          };
        }
      }
      if (hold) return { outcome: 'requires_approval', rule: hold.rule, detail: hold.detail, remedy: hold.remedy, headroom };
      return { outcome: 'allowed', rule: null, detail: {}, remedy: null, headroom };
    },
  };
}
