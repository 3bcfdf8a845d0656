/**
 * Action-type patterns, as policy rules, allowlists and agent key scopes write them: an exact type
 * (`payment.create`), a namespace (`payment.*`), or `*`. An empty list matches every type. This is the
 * one reading of them: the engine, the compiler and the backtest simulator match through
 * `actionTypeMatcher`; SQL measures windows through `actionTypeLikePatterns`, which an agreement test
 * binds to the matcher on real Postgres.
 */
export function actionTypeMatcher(patterns: readonly string[]): (actionType: string) => boolean {
  if (patterns.length === 0 || patterns.includes('*')) return () => true;
  const exact = new Set(patterns.filter((p) => !p.endsWith('.*')));
  // `payment.*` keeps its dot, so it never matches `payments.x` nor `payment` itself.
  const prefixes = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1));
  return (actionType) => exact.has(actionType) || prefixes.some((p) => actionType.startsWith(p));
}

/** Whether `patterns` cover `actionType`; `actionTypeMatcher` once for many types. */
export function matchesActionType(patterns: readonly string[], actionType: string): boolean {
  return actionTypeMatcher(patterns)(actionType);
}

/**
 * The same patterns as `LIKE` patterns over `intents.action_type` (backslash escapes `%`, `_` and
 * itself); null when every type matches, so SQL adds no filter.
 */
export function actionTypeLikePatterns(patterns: readonly string[]): string[] | null {
  if (patterns.length === 0 || patterns.includes('*')) return null;
  return patterns.map((p) => {
    const escaped = p.replace(/[\\%_]/g, (c) => `\\${c}`);
    return escaped.endsWith('.*') ? `${escaped.slice(0, -1)}%` : escaped;
  });
}
