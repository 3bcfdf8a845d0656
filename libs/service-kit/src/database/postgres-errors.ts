/**
 * Postgres refusals by SQLSTATE, read the same way whether the error is TypeORM's QueryFailedError
 * (the server's fields under `driverError`) or pg's own (on the error itself), so no caller compares
 * codes by hand.
 */
const SQLSTATE = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;

/** Serialization failure, deadlock victim: the whole transaction may simply run again. */
const RETRYABLE: ReadonlySet<string> = new Set([SQLSTATE.serializationFailure, SQLSTATE.deadlockDetected]);

function serverFields(e: unknown): { code?: unknown; constraint?: unknown } {
  if (typeof e !== 'object' || e === null) return {};
  const { driverError } = e as { driverError?: unknown };
  return typeof driverError === 'object' && driverError !== null ? driverError : e;
}

function sqlState(e: unknown): string | undefined {
  const { code } = serverFields(e);
  return typeof code === 'string' ? code : undefined;
}

/** A unique index refused the row: any index, the one named, or one of those named. */
export function isUniqueViolation(e: unknown, constraint?: string | ReadonlySet<string>): boolean {
  if (sqlState(e) !== SQLSTATE.uniqueViolation) return false;
  if (constraint === undefined) return true;
  const name = serverFields(e).constraint;
  if (typeof name !== 'string') return false;
  return typeof constraint === 'string' ? name === constraint : constraint.has(name);
}

/** A foreign key found no row to point at (or still had rows pointing at the one deleted). */
export function isForeignKeyViolation(e: unknown): boolean {
  return sqlState(e) === SQLSTATE.foreignKeyViolation;
}

/** The transaction lost to a concurrent one and was rolled back whole: running it again is safe. */
export function isRetryableConflict(e: unknown): boolean {
  return RETRYABLE.has(sqlState(e) ?? '');
}
