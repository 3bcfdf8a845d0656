import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { isRetryableConflict } from './postgres-errors';

const ATTEMPTS = 4;
const BACKOFF_MS = 5;

/**
 * `dataSource.transaction(work)`, run again from the start when Postgres aborts it as a deadlock
 * victim or a serialization failure: both roll everything back, so a fresh attempt is safe and a
 * race between two writers never reaches the client as an error. `work` must keep its effects
 * inside `em` (anything done outside would happen once per attempt). After the last attempt the
 * conflict propagates (and is answered as a retryable 503).
 */
export async function retryingTransaction<T>(
  dataSource: DataSource,
  work: (em: EntityManager) => Promise<T>,
  isolation?: IsolationLevel,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return isolation ? await dataSource.transaction(isolation, work) : await dataSource.transaction(work);
    } catch (e) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(e)) throw e;
      // Jittered so the two sides of a deadlock do not meet again in step.
      await sleep(BACKOFF_MS * attempt * (1 + Math.random()));
    }
  }
}
