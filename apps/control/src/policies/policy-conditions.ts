import { unprocessable } from '../common/control-errors';

/** The condition language of `condition` rules: combinators over `{field, operator, value}` leaves. */
export const CONDITION_FIELDS = ['action_type', 'resource', 'cost_cents', 'currency', 'agent_id', 'agent_mode', 'budget_id'] as const;
export const CONDITION_OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'contains',
  'starts_with',
  'ends_with',
  'exists',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export type Condition =
  | { all_of: Condition[] }
  | { any_of: Condition[] }
  | { not: Condition }
  | { field: string; operator: ConditionOperator; value?: unknown };

/** What a condition reads: the action as evaluated, metadata reachable as `metadata.<path>`. */
export interface ConditionSubject {
  action_type: string;
  resource: string | null;
  cost_cents: number;
  currency: string;
  agent_id: string;
  agent_mode: string;
  budget_id: string;
  metadata: Record<string, unknown>;
}

export type Predicate = (subject: ConditionSubject) => boolean;

const MAX_DEPTH = 10;
const METADATA_PATH = /^metadata(\.[^.]+)+$/;
const NUMERIC: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte']);
const TEXTUAL: ReadonlySet<string> = new Set(['starts_with', 'ends_with']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(path: string, why: string): Error {
  return unprocessable(`${path}: ${why}`, path);
}

function checkLeafValue(path: string, operator: ConditionOperator, value: unknown): void {
  if (NUMERIC.has(operator) && typeof value !== 'number') throw invalid(path, `${operator} compares with a number value`);
  if (TEXTUAL.has(operator) && typeof value !== 'string') throw invalid(path, `${operator} needs a string value`);
  if ((operator === 'in' || operator === 'not_in') && !Array.isArray(value)) throw invalid(path, `${operator} needs an array value`);
  if ((operator === 'eq' || operator === 'ne' || operator === 'contains') && (value === undefined || value === null)) {
    throw invalid(path, `${operator} needs a value`);
  }
  if (operator === 'exists' && value !== undefined && value !== null && typeof value !== 'boolean') {
    throw invalid(path, 'exists takes no value, or a boolean');
  }
}

/** Validates a condition as written and returns it in its stored form; 422 on anything unknown. */
export function normalizeCondition(input: unknown, path: string, depth = 1): Condition {
  if (depth > MAX_DEPTH) throw invalid(path, `conditions nest at most ${MAX_DEPTH} levels`);
  if (!isObject(input)) throw invalid(path, 'a condition is an object');
  const keys = Object.keys(input);
  for (const combinator of ['all_of', 'any_of'] as const) {
    if (combinator in input) {
      const list = input[combinator];
      if (keys.length !== 1) throw invalid(path, `${combinator} stands alone in its object`);
      if (!Array.isArray(list) || list.length === 0) throw invalid(path, `${combinator} needs a non-empty array`);
      const children = list.map((c, i) => normalizeCondition(c, `${path}.${combinator}[${i}]`, depth + 1));
      return combinator === 'all_of' ? { all_of: children } : { any_of: children };
    }
  }
  if ('not' in input) {
    if (keys.length !== 1) throw invalid(path, 'not stands alone in its object');
    return { not: normalizeCondition(input.not, `${path}.not`, depth + 1) };
  }
  const { field, operator, value } = input;
  const unknownKeys = keys.filter((k) => !['field', 'operator', 'value'].includes(k));
  if (unknownKeys.length) throw invalid(path, `unknown condition key ${unknownKeys[0]}`);
  if (typeof field !== 'string' || !((CONDITION_FIELDS as readonly string[]).includes(field) || METADATA_PATH.test(field))) {
    throw invalid(path, `unknown field ${String(field)}; use ${CONDITION_FIELDS.join(', ')} or metadata.<path>`);
  }
  if (typeof operator !== 'string' || !(CONDITION_OPERATORS as readonly string[]).includes(operator)) {
    throw invalid(path, `unknown operator ${String(operator)}; use ${CONDITION_OPERATORS.join(', ')}`);
  }
  checkLeafValue(path, operator as ConditionOperator, value);
  return value === undefined ? { field, operator: operator as ConditionOperator } : { field, operator: operator as ConditionOperator, value };
}

type Getter = (subject: ConditionSubject) => unknown;

function getterFor(field: string): Getter {
  if (!field.startsWith('metadata.')) {
    const key = field as keyof ConditionSubject;
    return (s) => s[key];
  }
  const segments = field.split('.').slice(1);
  return (s) => {
    let node: unknown = s.metadata;
    for (const segment of segments) {
      // Own keys only: `metadata.constructor` must not find Object.prototype.constructor.
      if (!isObject(node) || !Object.hasOwn(node, segment)) return undefined;
      node = node[segment];
    }
    return node;
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** One closure per operator, built once per compiled policy; a missing field never matches. */
function leafPredicate(get: Getter, operator: ConditionOperator, value: unknown): Predicate {
  const present = (v: unknown) => v !== undefined && v !== null;
  switch (operator) {
    case 'eq':
      return (s) => sameValue(get(s), value);
    case 'ne':
      return (s) => {
        const v = get(s);
        return present(v) && !sameValue(v, value);
      };
    case 'gt':
      return (s) => {
        const v = get(s);
        return typeof v === 'number' && v > (value as number);
      };
    case 'gte':
      return (s) => {
        const v = get(s);
        return typeof v === 'number' && v >= (value as number);
      };
    case 'lt':
      return (s) => {
        const v = get(s);
        return typeof v === 'number' && v < (value as number);
      };
    case 'lte':
      return (s) => {
        const v = get(s);
        return typeof v === 'number' && v <= (value as number);
      };
    case 'in': {
      const list = value as unknown[];
      return (s) => {
        const v = get(s);
        return present(v) && list.some((item) => sameValue(item, v));
      };
    }
    case 'not_in': {
      const list = value as unknown[];
      return (s) => {
        const v = get(s);
        return present(v) && !list.some((item) => sameValue(item, v));
      };
    }
    case 'contains':
      return (s) => {
        const v = get(s);
        if (typeof v === 'string') return typeof value === 'string' && v.includes(value);
        return Array.isArray(v) && v.some((item) => sameValue(item, value));
      };
    case 'starts_with':
      return (s) => {
        const v = get(s);
        return typeof v === 'string' && v.startsWith(value as string);
      };
    case 'ends_with':
      return (s) => {
        const v = get(s);
        return typeof v === 'string' && v.endsWith(value as string);
      };
    case 'exists': {
      const wanted = value !== false;
      return (s) => present(get(s)) === wanted;
    }
  }
}

/** Compiles a validated condition into one closure tree. */
export function compileCondition(condition: Condition): Predicate {
  if ('all_of' in condition) {
    const parts = condition.all_of.map(compileCondition);
    return (s) => parts.every((p) => p(s));
  }
  if ('any_of' in condition) {
    const parts = condition.any_of.map(compileCondition);
    return (s) => parts.some((p) => p(s));
  }
  if ('not' in condition) {
    const inner = compileCondition(condition.not);
    return (s) => !inner(s);
  }
  return leafPredicate(getterFor(condition.field), condition.operator, condition.value);
}
