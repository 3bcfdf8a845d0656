import { isInt, isString, isUUID, length, matches } from 'class-validator';

/*
 * Fast paths of the hot request bodies (class-transformer and class-validator cost more per request
 * than the routes' own code). A fast validator accepts only the common shape, each field checked
 * with class-validator's own function for the DTO's decorator; anything else (an unknown field, a
 * null, a `__proto__` key anywhere, any doubt) answers undefined and the DTO's full validation runs,
 * so every error envelope still comes from it.
 */

/** One field's check; an absent optional field is never checked. */
export interface FieldRule {
  check(value: unknown): boolean;
  required?: boolean;
}

export const uuid: FieldRule = { check: (v) => isUUID(v), required: true };
export const string: FieldRule = { check: (v) => isString(v), required: true };
export const text = (min: number, max: number, pattern?: RegExp): FieldRule => ({
  check: (v) => length(v, min, max) && (!pattern || matches(v as string, pattern)),
  required: true,
});
export const integer = (min: number, max: number): FieldRule => ({ check: (v) => isInt(v) && (v as number) >= min && (v as number) <= max, required: true });
/** A free-form JSON object (metadata, say), which class-transformer would copy key by key. */
export const object: FieldRule = { check: (v) => isPlainObject(v) && copiesExactly(v), required: true };
export const optional = (rule: FieldRule): FieldRule => ({ check: rule.check });

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True unless a key would make class-transformer's copy differ (`__proto__` sets the prototype instead). */
function copiesExactly(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(copiesExactly);
  if (!isPlainObject(v)) return true;
  if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return false;
  for (const key in v) if (!copiesExactly(v[key])) return false;
  return true;
}

/** The validator of a DTO whose fields are exactly `rules`: a DTO instance built as the full path builds it, or undefined. */
export function fastValidator<T extends object>(dto: new () => T, rules: Record<string, FieldRule>): (body: unknown) => T | undefined {
  const required = Object.keys(rules).filter((name) => rules[name].required);
  return (body) => {
    if (!isPlainObject(body)) return undefined;
    for (const key in body) {
      const rule = rules[key] as FieldRule | undefined;
      if (!rule || !Object.prototype.hasOwnProperty.call(rules, key) || !rule.check(body[key])) return undefined;
    }
    for (const name of required) if (body[name] === undefined) return undefined;
    return Object.assign(new dto(), body);
  };
}
