/**
 * Control's policy rule kinds and the settings each takes: the one list that control validates rules
 * against and documents in its OpenAPI schema, and that the console's rule editor shows. Plain data, so
 * it runs in Node and in the browser alike.
 */
export const RULE_KINDS = ['cost_cap', 'spend_window', 'monthly_spend_cap', 'rate_limit', 'approval_threshold', 'action_allowlist', 'resource_allowlist', 'condition'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const RULE_EFFECTS = ['deny', 'allow', 'require_approval'] as const;
export type RuleEffect = (typeof RULE_EFFECTS)[number];

/** The settings a rule may carry beyond its id, kind, name and action types. */
export const RULE_SETTINGS = ['max_cents', 'window_seconds', 'max_actions', 'above_cents', 'allow', 'effect', 'when'] as const;
export type RuleSetting = (typeof RULE_SETTINGS)[number];

/** Settings each kind requires. */
export const REQUIRED_SETTINGS: Record<RuleKind, readonly RuleSetting[]> = {
  cost_cap: ['max_cents'],
  spend_window: ['max_cents', 'window_seconds'],
  monthly_spend_cap: ['max_cents'],
  rate_limit: ['max_actions', 'window_seconds'],
  approval_threshold: ['above_cents'],
  action_allowlist: ['allow'],
  resource_allowlist: ['allow'],
  condition: ['when'],
};

/** Settings a kind may leave out (a condition's effect defaults to deny); any setting in neither list is refused. */
export const OPTIONAL_SETTINGS: Partial<Record<RuleKind, readonly RuleSetting[]>> = { condition: ['effect'] };

/** Every setting a kind takes, optional ones first (a condition reads "effect, when"). */
export function settingsOf(kind: RuleKind): readonly RuleSetting[] {
  return [...(OPTIONAL_SETTINGS[kind] ?? []), ...REQUIRED_SETTINGS[kind]];
}

/** The kinds that take `setting`, in kind order. */
export function kindsTaking(setting: RuleSetting): RuleKind[] {
  return RULE_KINDS.filter((kind) => settingsOf(kind).includes(setting));
}
