import type { DataSource, EntityManager } from 'typeorm';

/** A database transaction left open on purpose; the test decides when it commits. */
export interface HeldTransaction<T> {
  /** What `work` answered inside the transaction. */
  value: T;
  commit(): Promise<void>;
}

/**
 * Runs `work` in a new database transaction and keeps it open, so a test can make it commit after
 * others that started later (what a slow writer does to an ordered log).
 */
export async function holdTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<HeldTransaction<T>> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  try {
    const value = await work(runner.manager);
    return {
      value,
      commit: async () => {
        try {
          await runner.commitTransaction();
        } finally {
          await runner.release();
        }
      },
    };
  } catch (err) {
    await runner.rollbackTransaction().catch(() => undefined);
    await runner.release();
    throw err;
  }
}
