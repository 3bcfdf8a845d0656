import { QueryFailedError } from 'typeorm';

/** True when a statement failed on a unique index, optionally a named one. */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  if (!(e instanceof QueryFailedError)) return false;
  const driver = e.driverError as { code?: string; constraint?: string };
  return driver.code === '23505' && (constraint === undefined || driver.constraint === constraint);
}
