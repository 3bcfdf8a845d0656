import { randomUUID } from 'node:crypto';
import { sha256Hex } from '@bursar/crypto';
import { unprocessable } from '../common/control-errors';
import { OPTIONAL_SETTINGS, REQUIRED_SETTINGS, RULE_EFFECTS, RULE_KINDS, RuleEffect, RuleKind, RuleSetting } from '@bursar/policy-rules';
import { Condition, normalizeCondition } from './policy-conditions';

/** A rule as stored and returned: every setting its kind needs, nothing else. */
export interface PolicyRule {
  id: string;
  kind: RuleKind;
  rule_name: string;
  action_types: string[];
  max_cents?: number;
  window_seconds?: number;
  max_actions?: number;
  above_cents?: number;
  allow?: string[];
  effect?: RuleEffect;
  when?: Condition;
}

const COMMON = ['id', 'kind', 'rule_name', 'action_types'];
const ACTION_PATTERN = /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RULE_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_RULES = 500;

/** A 422 whose message starts with the offending path, which it also names as `param`. */
const refuse = (at: string, why: string) => unprocessable(`${at} ${why}`, at);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonNegativeInt(value: unknown, min = 0): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

function stringList(value: unknown, pattern?: RegExp): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 500 && (!pattern || pattern.test(v)));
}

function setting(rule: Record<string, unknown>, key: RuleSetting, path: string): unknown {
  const value = rule[key];
  const at = `${path}.${key}`;
  switch (key) {
    case 'max_cents':
    case 'above_cents':
      if (!nonNegativeInt(value)) throw refuse(at, 'must be an integer >= 0');
      return value;
    case 'window_seconds':
    case 'max_actions':
      if (!nonNegativeInt(value, 1)) throw refuse(at, 'must be an integer >= 1');
      return value;
    case 'allow':
      if (!stringList(value, rule.kind === 'action_allowlist' ? ACTION_PATTERN : undefined)) {
        throw refuse(at, `must be an array of ${rule.kind === 'action_allowlist' ? 'action types' : 'non-empty strings'}`);
      }
      return value;
    case 'effect':
      if (!(RULE_EFFECTS as readonly unknown[]).includes(value)) throw refuse(at, `must be one of ${RULE_EFFECTS.join(', ')}`);
      return value;
    case 'when':
      return normalizeCondition(value, at);
    default:
      return value;
  }
}

/** Validates one rule as written, assigning an id and the default name; 422 names the offending path. */
export function normalizeRule(input: unknown, path: string): PolicyRule {
  if (!isObject(input)) throw refuse(path, 'must be an object');
  const kind = input.kind;
  if (typeof kind !== 'string' || !(RULE_KINDS as readonly string[]).includes(kind)) {
    throw refuse(`${path}.kind`, `must be one of ${RULE_KINDS.join(', ')}`);
  }
  const k = kind as RuleKind;
  const required = REQUIRED_SETTINGS[k];
  const optional = OPTIONAL_SETTINGS[k] ?? [];
  const extra = Object.keys(input).filter((key) => !COMMON.includes(key) && !required.includes(key as never) && !optional.includes(key as never));
  if (extra.length) throw refuse(`${path}.${extra[0]}`, `is not a setting of ${k}`);
  if (input.id !== undefined && (typeof input.id !== 'string' || !UUID.test(input.id))) throw refuse(`${path}.id`, 'must be a uuid');
  if (input.rule_name !== undefined && (typeof input.rule_name !== 'string' || !RULE_NAME.test(input.rule_name))) {
    throw refuse(`${path}.rule_name`, 'must be lowercase letters, digits and underscores');
  }
  if (input.action_types !== undefined && (k === 'action_allowlist' || !stringList(input.action_types, ACTION_PATTERN))) {
    throw refuse(`${path}.action_types`, `must be an array of action types${k === 'action_allowlist' ? ' and is not a setting of action_allowlist' : ''}`);
  }
  const rule: PolicyRule = {
    id: (input.id as string | undefined)?.toLowerCase() ?? randomUUID(),
    kind: k,
    rule_name: (input.rule_name as string | undefined) ?? k,
    action_types: (input.action_types as string[] | undefined) ?? [],
  };
  for (const key of required) {
    if (input[key] === undefined || input[key] === null) throw refuse(`${path}.${key}`, `is required for ${k}`);
    Object.assign(rule, { [key]: setting(input, key, path) });
  }
  for (const key of optional) {
    if (input[key] !== undefined) Object.assign(rule, { [key]: setting(input, key, path) });
  }
  if (k === 'condition' && rule.effect === undefined) rule.effect = 'deny';
  return rule;
}

export function normalizeRules(input: unknown, path = 'rules'): PolicyRule[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw refuse(path, 'must be an array');
  if (input.length > MAX_RULES) throw refuse(path, `holds at most ${MAX_RULES} rules`);
  const rules = input.map((r, i) => normalizeRule(r, `${path}[${i}]`));
  const ids = new Set(rules.map((r) => r.id));
  if (ids.size !== rules.length) throw unprocessable(`${path}: rule ids must be unique`, path);
  return rules;
}

/** The typed shorthand of a policy; each set column becomes one rule reporting under its short name. */
export interface TypedColumns {
  per_transaction_cap_cents: number | null;
  velocity_cap_cents: number | null;
  velocity_window_seconds: number | null;
  monthly_cap_cents: number | null;
  approval_threshold_cents: number | null;
  counterparty_allowlist: string[];
}

/** Stable per policy and column, so a typed rule keeps its id across reads and versions. */
function typedRuleId(policyId: string, column: string): string {
  const h = sha256Hex(`${policyId}:${column}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function desugarTypedColumns(policyId: string, c: TypedColumns): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const add = (name: string, rule: Omit<PolicyRule, 'id' | 'rule_name' | 'action_types'>) =>
    rules.push({ id: typedRuleId(policyId, name), rule_name: name, action_types: [], ...rule });
  if (c.counterparty_allowlist.length) add('counterparty_allowlist', { kind: 'resource_allowlist', allow: c.counterparty_allowlist });
  if (c.per_transaction_cap_cents !== null) add('per_transaction_cap', { kind: 'cost_cap', max_cents: c.per_transaction_cap_cents });
  if (c.velocity_cap_cents !== null && c.velocity_window_seconds !== null) {
    add('velocity_cap', { kind: 'spend_window', max_cents: c.velocity_cap_cents, window_seconds: c.velocity_window_seconds });
  }
  if (c.monthly_cap_cents !== null) add('monthly_cap', { kind: 'monthly_spend_cap', max_cents: c.monthly_cap_cents });
  if (c.approval_threshold_cents !== null) add('approval_threshold', { kind: 'approval_threshold', above_cents: c.approval_threshold_cents });
  return rules;
}
