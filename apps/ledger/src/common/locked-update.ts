import { DataSource, EntityTarget, FindOptionsWhere, ObjectLiteral, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { LedgerScope } from './mode';

/**
 * Runs `change` on the row matching `where` while it is locked (SELECT ... FOR UPDATE), so a
 * precondition `change` checks still holds when the update lands. `change` returns the columns to
 * set, or null/{} to leave the row as it is. Null when no row matches.
 */
export function updateLocked<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
  where: FindOptionsWhere<T>,
  change: (current: T) => Partial<T> | null,
): Promise<T | null> {
  return dataSource.transaction(async (manager) => {
    const rows = manager.getRepository(entity);
    const current = await rows.findOne({ where, lock: { mode: 'pessimistic_write' } });
    if (!current) return null;
    const changes = change(current);
    if (!changes || Object.keys(changes).length === 0) return current;
    // jsonb columns are written whole; TypeORM's deep-partial typing does not model that.
    await rows.update(where, changes as QueryDeepPartialEntity<T>);
    return rows.findOneByOrFail(where);
  });
}

/** A ledger's row by id, read and locked (SELECT ... FOR UPDATE) until the caller's transaction ends. */
export function lockLedgerRow<T extends ObjectLiteral>(rows: Repository<T>, scope: LedgerScope, id: string): Promise<T | null> {
  return rows
    .createQueryBuilder('r')
    .setLock('pessimistic_write')
    .where('r.ledger_id = :ledgerId AND r.id = :id', { ledgerId: scope.ledgerId, id })
    .getOne();
}
