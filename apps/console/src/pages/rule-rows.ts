import { z } from 'zod';
import { RULE_EFFECTS, RULE_KINDS, RULE_SETTINGS, RuleKind, RuleSetting, settingsOf } from '@bursar/policy-rules';

/** The fields of a rule row; a refusal naming any other part of a rule lands on its kind. */
export const RULE_FIELDS = ['kind', 'rule_name', 'action_types', ...RULE_SETTINGS] as const;

/** A rule as its form row holds it: every input as text, whichever the kind uses. */
export interface RuleRow {
  id: string;
  kind: RuleKind;
  rule_name: string;
  action_types: string;
  max_cents: string;
  window_seconds: string;
  max_actions: string;
  above_cents: string;
  allow: string;
  effect: (typeof RULE_EFFECTS)[number];
  when: string;
}

/** A rule as control reads and writes it. */
export type ApiRule = { id?: string; kind: RuleKind; rule_name?: string; action_types?: string[] } & Partial<Record<RuleSetting, unknown>>;

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);
const WHOLE = /^\d+$/;
const POSITIVE = /^[1-9]\d*$/;
const RULE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export function blankRule(kind: RuleKind): RuleRow {
  return { id: '', kind, rule_name: '', action_types: '', max_cents: '', window_seconds: '', max_actions: '', above_cents: '', allow: '', effect: 'deny', when: '' };
}

export function rowOf(rule: ApiRule): RuleRow {
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    id: rule.id ?? '',
    kind: rule.kind,
    // The default name (the kind's) is left blank, so changing the kind keeps reporting under the new one.
    rule_name: rule.rule_name && rule.rule_name !== rule.kind ? rule.rule_name : '',
    action_types: (rule.action_types ?? []).join(', '),
    max_cents: text(rule.max_cents),
    window_seconds: text(rule.window_seconds),
    max_actions: text(rule.max_actions),
    above_cents: text(rule.above_cents),
    allow: ((rule.allow as string[] | undefined) ?? []).join(', '),
    effect: (rule.effect as RuleRow['effect'] | undefined) ?? 'deny',
    when: rule.when === undefined ? '' : JSON.stringify(rule.when, null, 2),
  };
}

/** One row's settings checked by kind; the issues name the row's fields. */
export function parseRule(row: RuleRow): { rule: ApiRule; issues?: undefined } | { rule?: undefined; issues: { field: keyof RuleRow; message: string }[] } {
  const issues: { field: keyof RuleRow; message: string }[] = [];
  const rule: ApiRule = { kind: row.kind };
  if (row.id) rule.id = row.id;
  const name = row.rule_name.trim();
  if (name && !RULE_NAME.test(name)) issues.push({ field: 'rule_name', message: 'lowercase letters, digits and underscores, starting with a letter' });
  else if (name) rule.rule_name = name;
  if (row.kind !== 'action_allowlist' && list(row.action_types).length > 0) rule.action_types = list(row.action_types);
  for (const setting of settingsOf(row.kind)) {
    const text = setting === 'effect' ? row.effect : row[setting].trim();
    if (setting === 'max_cents' || setting === 'above_cents') {
      if (!WHOLE.test(text)) issues.push({ field: setting, message: 'a whole number of cents' });
      else rule[setting] = Number(text);
    } else if (setting === 'window_seconds' || setting === 'max_actions') {
      if (!POSITIVE.test(text)) issues.push({ field: setting, message: 'a whole number of at least 1' });
      else rule[setting] = Number(text);
    } else if (setting === 'allow') {
      rule.allow = list(text);
    } else if (setting === 'effect') {
      rule.effect = text;
    } else {
      try {
        rule.when = JSON.parse(text) as unknown;
      } catch (err) {
        issues.push({ field: 'when', message: `a condition as JSON (${err instanceof Error ? err.message : String(err)})` });
      }
    }
  }
  return issues.length ? { issues } : { rule };
}

/** Rules as the JSON view holds them: an array of objects with a known kind. */
export const jsonRules = z.string().transform((text, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '[]');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not JSON: ${err instanceof Error ? err.message : String(err)}` });
    return z.NEVER;
  }
  const known = (r: unknown) => typeof r === 'object' && r !== null && (RULE_KINDS as readonly unknown[]).includes((r as { kind?: unknown }).kind);
  if (!Array.isArray(parsed) || !parsed.every(known)) {
    ctx.addIssue({ code: 'custom', message: `an array of rules, each with a kind among ${RULE_KINDS.join(', ')}` });
    return z.NEVER;
  }
  return parsed as ApiRule[];
});
