import type { KeyObject } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { appendLeaf, checkpointPayload, EMPTY_FRONTIER, type LogSubject, type MerkleFrontier, rootOfState, signCheckpoint } from '@bursar/crypto';
import { retryingTransaction } from '../database/retrying-transaction';
import { logLeaf, logLeafHash } from './log-leaf';
import type { LogSource } from './log-source';
import { type LogCheckpointRow, LogStore, type NewLogEntry } from './log-store';

export interface LogSealerOptions {
  subject: LogSubject;
  /** Changes sealed per transaction. */
  batch: number;
  /** A checkpoint is signed once a log has grown this many entries past its newest one... */
  checkpointEvery: number;
  /** ...or this many seconds after it, when it has grown at all. */
  checkpointSeconds: number;
  /** The key that signs now; null leaves logs unsigned until one exists. */
  signer: () => Promise<{ kid: string; key: KeyObject } | null>;
}

/**
 * Appends committed changes to their logs after the fact (queue, then integrate): the write path
 * only writes its own rows, and this reads them back in commit order once nothing in flight can
 * land before them. One replica seals at a time (an advisory lock); the log tables and the sealer's
 * position move in one transaction, so a crash seals a change either once or not yet.
 */
export class LogSealer {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: LogStore,
    private readonly source: LogSource,
    private readonly options: LogSealerOptions,
  ) {}

  /** Seals one batch; 0 when there was nothing to seal or another replica is sealing. */
  sealBatch(wait = false): Promise<number> {
    return retryingTransaction(this.dataSource, async (em) => {
      if (!(await this.store.lock(em, wait))) return 0;
      // The changes views are unions over the books: once the tables grow, the planner's estimate passes
      // jit_above_cost and each poll spent 1-2 s compiling code for a handful of rows (seen in bench:reconcile).
      await em.query('SET LOCAL jit = off');
      const changes = await this.source.pending(em, await this.store.position(em), this.options.batch);
      if (changes.length === 0) return 0;
      const heads = await this.store.heads(em, [...new Set(changes.map((c) => c.logId))]);
      const frontiers = new Map<string, MerkleFrontier>([...heads].map(([id, h]) => [id, h.frontier]));
      const entries: NewLogEntry[] = changes.map((change) => {
        const frontier = frontiers.get(change.logId) ?? EMPTY_FRONTIER;
        const leaf = logLeaf(frontier.size, change);
        const leafHash = logLeafHash(leaf);
        frontiers.set(change.logId, appendLeaf(frontier, leafHash));
        return { ...change, index: frontier.size, leaf, leafHash };
      });
      await this.store.append(em, entries);
      await this.store.saveHeads(em, [...frontiers].map(([logId, frontier]) => ({ logId, frontier })));
      await this.store.advance(em, changes[changes.length - 1].position);
      return changes.length;
    });
  }

  /**
   * One round of a background loop: batches while they come back full, then the checkpoints due.
   * Under load, sealing until nothing is left would chase the writers a few rows a transaction;
   * what arrives during the round waits for the next, an interval later, and is sealed in one.
   */
  async round(): Promise<number> {
    let total = 0;
    for (;;) {
      const sealed = await this.sealBatch();
      total += sealed;
      if (sealed < this.options.batch) break;
    }
    await this.signDue();
    return total;
  }

  /** Seals until nothing final is left; what it sealed. */
  async sealAll(wait = false): Promise<number> {
    let total = 0;
    for (let n = await this.sealBatch(wait); n > 0; n = await this.sealBatch(wait)) total += n;
    return total;
  }

  /** Signs the logs that are due (see LogStore.dueForCheckpoint). */
  async signDue(): Promise<number> {
    const due = await this.store.dueForCheckpoint(this.store.manager, this.options.checkpointEvery, this.options.checkpointSeconds);
    for (const logId of due) await this.sign(logId);
    return due.length;
  }

  /** Everything final sealed, then the log's head signed now (or its checkpoint at that size, if one exists). */
  async checkpointNow(logId: string): Promise<LogCheckpointRow | null> {
    await this.sealAll(true);
    return this.sign(logId);
  }

  /** A checkpoint of the log's head as committed; null with no signing key or an empty log. */
  private async sign(logId: string): Promise<LogCheckpointRow | null> {
    const signer = await this.options.signer();
    if (!signer) return null;
    return this.dataSource.transaction(async (em: EntityManager) => {
      const head = (await this.store.heads(em, [logId])).get(logId);
      if (!head) return null;
      const existing = await this.store.checkpoint(em, logId, head.frontier.size);
      if (existing) return existing;
      const signedAt = new Date();
      const rootHash = rootOfState(head.frontier);
      const payload = checkpointPayload({ subject: this.options.subject, log_id: logId, tree_size: head.frontier.size, root_hash: rootHash, timestamp: signedAt });
      const token = await signCheckpoint(payload, signer);
      await this.store.insertCheckpoint(em, { logId, treeSize: head.frontier.size, rootHash, kid: signer.kid, token, signedAt });
      return this.store.checkpoint(em, logId, head.frontier.size);
    });
  }
}
