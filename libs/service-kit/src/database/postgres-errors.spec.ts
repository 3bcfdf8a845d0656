import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isForeignKeyViolation, isRetryableConflict, isUniqueViolation } from './postgres-errors';

/** pg's error for a refused statement, as the server reports it. */
function refusal(code: string, constraint?: string): DatabaseError {
  return Object.assign(new DatabaseError('refused', 0, 'error'), { code, constraint });
}

/** The same refusal as TypeORM throws it. */
const viaTypeorm = (e: DatabaseError) => new QueryFailedError('INSERT ...', [], e);

describe('postgres errors', () => {
  it.each([
    ['unique violation', refusal('23505', 'workspaces_slug_key'), { unique: true, foreignKey: false, retryable: false }],
    ['foreign key violation', refusal('23503', 'deliveries_endpoint_fkey'), { unique: false, foreignKey: true, retryable: false }],
    ['serialization failure', refusal('40001'), { unique: false, foreignKey: false, retryable: true }],
    ['deadlock victim', refusal('40P01'), { unique: false, foreignKey: false, retryable: true }],
    ['check violation', refusal('23514', 'amount_positive'), { unique: false, foreignKey: false, retryable: false }],
    ['lock timeout', refusal('55P03'), { unique: false, foreignKey: false, retryable: false }],
  ])('reads a %s from pg and through TypeORM alike', (_name, error, expected) => {
    for (const e of [error, viaTypeorm(error)]) {
      expect({ unique: isUniqueViolation(e), foreignKey: isForeignKeyViolation(e), retryable: isRetryableConflict(e) }).toEqual(expected);
    }
  });

  it('names the unique index when asked: one name or a set of them', () => {
    const e = viaTypeorm(refusal('23505', 'workspaces_slug_key'));
    expect(isUniqueViolation(e, 'workspaces_slug_key')).toBe(true);
    expect(isUniqueViolation(e, 'memberships_user_key')).toBe(false);
    expect(isUniqueViolation(e, new Set(['a_idx', 'workspaces_slug_key']))).toBe(true);
    expect(isUniqueViolation(e, new Set(['a_idx']))).toBe(false);
    expect(isUniqueViolation(refusal('23505'), 'workspaces_slug_key')).toBe(false);
    expect(isUniqueViolation(refusal('23503', 'workspaces_slug_key'), 'workspaces_slug_key')).toBe(false);
  });

  it('is false for anything that is not a refusal by the server', () => {
    for (const e of [new Error('23505'), Object.assign(new Error('reset'), { code: 'ECONNRESET' }), '23505', null, undefined, { driverError: null }]) {
      expect([isUniqueViolation(e), isForeignKeyViolation(e), isRetryableConflict(e)]).toEqual([false, false, false]);
    }
  });
});
