import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** Raised when the environment does not describe a valid configuration; its message is one line. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function describe(errors: ValidationError[]): string {
  return errors
    .map((e) => {
      const value = e.value === undefined || e.value === '' ? 'missing' : `got ${JSON.stringify(e.value)}`;
      const rule = Object.values(e.constraints ?? {})[0] ?? 'is invalid';
      return `${rule} (${value})`;
    })
    .join('; ');
}

/**
 * Validates environment variables into a typed settings object. The class's properties are the
 * variables' names, with class-validator rules and defaults; empty strings count as unset.
 */
export function loadConfig<T extends object>(schema: new () => T, env: Record<string, string | undefined>): T {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const instance = plainToInstance(schema, present, { exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length) throw new ConfigError(`Invalid configuration: ${describe(errors)}`);
  return instance;
}
