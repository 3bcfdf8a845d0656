import { ArgumentMetadata, Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailed } from '@bursar/errors';
import { nullsAsAbsent } from './dto-conventions';

/** Failing field paths with their messages, and the paths that were simply absent. */
function collect(errors: ValidationError[], prefix: string, into: Record<string, string[]>, missing: string[]) {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      // An absent required field fails every constraint on it; "is required" is the one that helps.
      if (e.value === undefined) missing.push(path);
      into[path] = e.value === undefined ? ['is required'] : Object.values(e.constraints);
    }
    if (e.children?.length) collect(e.children, path, into, missing);
  }
  return { fields: into, missing };
}

/**
 * A hand-written check for a hot DTO: the transformed instance when the input is certainly valid,
 * else undefined, and the full validation then runs (so every failure is still reported by it).
 */
export type FastValidator = (value: unknown) => object | undefined;
const fastValidators = new Map<Type<unknown>, FastValidator>();

export function registerFastValidator(metatype: Type<unknown>, validate: FastValidator): void {
  fastValidators.set(metatype, validate);
}

/** DTOs an empty object has already passed: validating `{}` always gives the same answer. */
const emptyAccepted = new Set<Type<unknown>>();

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** Tags each failure with where the input came from (body, query, path), which some envelopes map to a status. */
class SourcedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    // Most requests send no query at all; its DTO instance is then just a new one.
    const empty = metatype !== undefined && isEmptyObject(value);
    if (empty && emptyAccepted.has(metatype)) return new metatype();
    const accepted = metatype && fastValidators.get(metatype)?.(value);
    if (accepted) return accepted;
    try {
      const transformed: unknown = await super.transform(value, metadata);
      nullsAsAbsent(transformed);
      if (empty && transformed instanceof metatype) emptyAccepted.add(metatype);
      return transformed;
    } catch (e) {
      if (e instanceof ValidationFailed) e.source = metadata.type;
      throw e;
    }
  }
}

/** DTO validation: unknown fields refused, values transformed, null as absent where not nullable, failures reported per field path. */
export function createValidationPipe(): ValidationPipe {
  return new SourcedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const { fields, missing } = collect(errors, '', {}, []);
      return new ValidationFailed(fields, missing);
    },
  });
}
