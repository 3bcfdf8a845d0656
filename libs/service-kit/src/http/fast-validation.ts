import { isBoolean, isInt, isString, isUUID, length, matches } from 'class-validator';

/*
 * Fast paths of hot request bodies (class-transformer and class-validator cost more per request
 * than the routes' own code), registered with registerFastValidator. A fast validator accepts only
 * the common shape, each field checked with class-validator's own function for the DTO's decorator
 * (or the DTO's own check); anything else (an unknown field, a null, a `__proto__` key anywhere,
 * any doubt) answers undefined and the DTO's full validation runs, so every error envelope still
 * comes from it.
 */

/** Returned by a rule that refuses its value. */
const REFUSED = Symbol('refused');

/** One field's rule: the value to set on the DTO instance, or REFUSED. An absent optional field is never checked. */
export interface FieldRule {
  accept(value: unknown): unknown;
  required?: boolean;
}

/** A required field passing `check`, set as given. */
const satisfies = (check: (value: unknown) => boolean): FieldRule => ({ accept: (v) => (check(v) ? v : REFUSED), required: true });

const uuid = satisfies((v) => isUUID(v));
const string = satisfies((v) => isString(v));
const boolean = satisfies((v) => isBoolean(v));
const text = (min: number, max: number, pattern?: RegExp): FieldRule =>
  satisfies((v) => length(v, min, max) && (!pattern || matches(v as string, pattern)));
const pattern = (re: RegExp): FieldRule => satisfies((v) => typeof v === 'string' && re.test(v));
const oneOf = (...values: unknown[]): FieldRule => satisfies((v) => values.includes(v));
const integer = (min: number, max: number): FieldRule => satisfies((v) => isInt(v) && (v as number) >= min && (v as number) <= max);
/** A free-form JSON object (metadata, say), which class-transformer would copy key by key. */
export const object: FieldRule = satisfies((v) => isPlainObject(v) && copiesExactly(v));
const optional = (rule: FieldRule): FieldRule => ({ accept: rule.accept });

/** An array of `min` to `max` nested DTOs, each accepted by `item` (a fastValidator), set as those instances. */
const list = (item: (value: unknown) => object | undefined, min: number, max: number): FieldRule => ({
  accept: (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return REFUSED;
    const accepted: object[] = [];
    for (const element of v) {
      const instance = item(element);
      if (!instance) return REFUSED;
      accepted.push(instance);
    }
    return accepted;
  },
  required: true,
});

/** The rules a fast validator's fields are made of. */
export const field = { satisfies, uuid, string, boolean, text, pattern, oneOf, integer, object, optional, list };

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
    const instance = new dto() as Record<string, unknown>;
    for (const key in body) {
      const rule = Object.prototype.hasOwnProperty.call(rules, key) ? rules[key] : undefined;
      const value = rule?.accept(body[key]) ?? REFUSED;
      if (value === REFUSED) return undefined;
      instance[key] = value;
    }
    for (const name of required) if (body[name] === undefined) return undefined;
    return instance as T;
  };
}
