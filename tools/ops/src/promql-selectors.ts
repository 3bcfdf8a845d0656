/** A label matcher of a selector, e.g. `job=~"control|ledger"`. */
export interface LabelMatcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** A series selector in a PromQL expression: the metric name and its label matchers. */
export interface MetricSelector {
  name: string;
  matchers: LabelMatcher[];
}

/** Words that are never metric names where they stand: operators, modifiers, aggregations. */
const KEYWORDS = new Set([
  'and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan',
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values',
  'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
]);
/** Keywords followed by a parenthesised list of label names, not expressions. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const IDENT = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL = /[a-zA-Z_][a-zA-Z0-9_]*/y;

/**
 * Every series selector of a PromQL expression. A metric name is an identifier that is not a
 * keyword, not called (`rate(`), not a label name (inside `{}` or a `by (...)` list) and not part
 * of a number or duration; a bare `{__name__="x"}` counts as `x`. Throws on a malformed matcher
 * block, so a typo cannot hide a name.
 */
export function metricSelectors(expr: string): MetricSelector[] {
  const found: MetricSelector[] = [];
  let i = 0;
  const skipSpace = () => {
    for (;;) {
      while (i < expr.length && /\s/.test(expr[i])) i++;
      if (expr[i] !== '#') return;
      while (i < expr.length && expr[i] !== '\n') i++;
    }
  };
  const readString = (): string => {
    const quote = expr[i++];
    let out = '';
    while (i < expr.length && expr[i] !== quote) {
      if (expr[i] === '\\' && quote !== '`') i++;
      out += expr[i++];
    }
    if (i >= expr.length) throw new Error(`unterminated string in: ${expr}`);
    i++;
    return out;
  };
  const match = (re: RegExp): string | null => {
    re.lastIndex = i;
    const m = re.exec(expr);
    if (!m) return null;
    i += m[0].length;
    return m[0];
  };
  const readMatchers = (): LabelMatcher[] => {
    const matchers: LabelMatcher[] = [];
    i++; // {
    for (;;) {
      skipSpace();
      if (expr[i] === '}') return (i++, matchers);
      const label = match(LABEL);
      skipSpace();
      const op = match(/=~|!~|!=|=/y) as LabelMatcher['op'] | null;
      skipSpace();
      if (!label || !op || !['"', "'", '`'].includes(expr[i])) throw new Error(`malformed label matcher at ${i} in: ${expr}`);
      matchers.push({ label, op, value: readString() });
      skipSpace();
      if (expr[i] === ',') i++;
    }
  };
  const skipBracket = (open: string, close: string) => {
    let depth = 0;
    do {
      if (expr[i] === open) depth++;
      else if (expr[i] === close) depth--;
      i++;
    } while (depth > 0 && i < expr.length);
  };

  while (skipSpace(), i < expr.length) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') readString();
    else if (c === '[') skipBracket('[', ']');
    else if (c === '{') {
      const matchers = readMatchers();
      const name = matchers.find((m) => m.label === '__name__' && m.op === '=');
      if (name) found.push({ name: name.value, matchers: matchers.filter((m) => m !== name) });
    } else if (/[0-9.]/.test(c)) match(/[0-9.][0-9a-zA-Z_.+]*/y);
    else if (/[a-zA-Z_:]/.test(c)) {
      const word = match(IDENT) as string;
      skipSpace();
      if (LABEL_LISTS.has(word)) {
        if (expr[i] === '(') skipBracket('(', ')');
      } else if (!KEYWORDS.has(word) && expr[i] !== '(') {
        found.push({ name: word, matchers: expr[i] === '{' ? readMatchers() : [] });
      }
    } else i++;
  }
  return found;
}

/** The services (of `services`) a selector's `job` matchers let through; all of them when it has none. */
export function targetedServices(selector: MetricSelector, services: string[]): string[] {
  const jobs = selector.matchers.filter((m) => m.label === 'job');
  return services.filter((s) =>
    jobs.every((m) => {
      const hit = m.op === '=' || m.op === '!=' ? s === m.value : new RegExp(`^(?:${m.value})$`).test(s);
      return m.op.startsWith('!') ? !hit : hit;
    }),
  );
}

/** Names of the samples in a Prometheus text exposition (histograms as their _bucket, _sum, _count). */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    if (line.startsWith('#')) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (name) names.add(name);
  }
  return names;
}

/**
 * What is wrong with the metric names `expr` uses, given what each service exposes: a selector
 * without a `job` matcher (the target would be a guess), one whose matchers fit no service, and
 * every name a targeted service does not expose. `external` names come from elsewhere (`up`).
 */
export function unexposedMetrics(expr: string, exposed: Record<string, Set<string>>, external: ReadonlySet<string>): string[] {
  const services = Object.keys(exposed);
  const problems: string[] = [];
  for (const selector of metricSelectors(expr)) {
    if (!selector.matchers.some((m) => m.label === 'job')) {
      problems.push(`${selector.name}: no job matcher`);
      continue;
    }
    const targets = targetedServices(selector, services);
    if (targets.length === 0) problems.push(`${selector.name}: its job matcher fits no service`);
    if (external.has(selector.name)) continue;
    for (const service of targets) if (!exposed[service].has(selector.name)) problems.push(`${selector.name}: not exposed by ${service}`);
  }
  return problems;
}
