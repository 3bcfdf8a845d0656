import { QueryFailedError } from 'typeorm';

export interface StatementBatcherOptions<I> {
  /** Most items one batch carries (default 200). */
  maxBatch?: number;
  /** Items of different lanes never share a batch (a statement for one ledger, say); default one lane. */
  lane?: (item: I) => string;
  /** Batches of one lane in flight at once (default 1). */
  inFlight?: number;
  /** Items with the same conflict key never share a batch (a later one waits for the next), for statements that may touch a row once only. */
  conflictKey?: (item: I) => string | null;
  /**
   * Keys an item holds while its batch runs: an item waits while a batch in flight holds one of its
   * keys, so batches in flight never wait on each other's row locks; items in one batch may share them.
   */
  holds?: (item: I) => readonly string[];
}

interface Waiting<I, O> {
  item: I;
  resolve(result: O): void;
  reject(e: unknown): void;
}

interface Lane<I, O> {
  queue: Waiting<I, O>[];
  running: number;
  /** Keys held by batches in flight, with how many batches hold each. */
  held: Map<string, number>;
}

/**
 * Group commit for statements run outside any transaction (each statement commits alone): calls
 * arriving while a lane's batches are in flight wait and go together in the next one, so under load
 * many requests share one round trip (and one commit) while a lone request goes at once.
 * Guarantees: each caller gets its own result, in the order `run` answers them; items are taken in
 * arrival order, except that one waits while a conflict key or a held key keeps it out; a batch the
 * database refused (an error with a SQLSTATE) is retried item by item, so one bad item fails alone,
 * while any other failure (no connection, say) fails the whole batch at once rather than once per item.
 */
export class StatementBatcher<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();

  /** `run` answers one result per item, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: StatementBatcherOptions<I> = {},
  ) {}

  private static refusedByDatabase(e: unknown): boolean {
    // The server's refusals carry a five-character SQLSTATE; connection failures carry none (or an errno name).
    const code = e instanceof QueryFailedError ? (e.driverError as { code?: unknown }).code : undefined;
    return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      const name = this.options.lane?.(item) ?? '';
      let lane = this.lanes.get(name);
      if (!lane) this.lanes.set(name, (lane = { queue: [], running: 0, held: new Map() }));
      lane.queue.push({ item, resolve, reject });
      this.pump(name, lane);
    });
  }

  /** Starts batches of queued items while the lane has room and something can go. */
  private pump(name: string, lane: Lane<I, O>): void {
    const { inFlight = 1, holds } = this.options;
    while (lane.queue.length > 0 && lane.running < inFlight) {
      const batch = this.take(lane);
      if (batch.length === 0) return;
      const held = holds ? [...new Set(batch.flatMap((b) => holds(b.item)))] : [];
      for (const key of held) lane.held.set(key, (lane.held.get(key) ?? 0) + 1);
      lane.running += 1;
      void this.send(batch).finally(() => {
        for (const key of held) {
          const left = (lane.held.get(key) ?? 1) - 1;
          if (left === 0) lane.held.delete(key);
          else lane.held.set(key, left);
        }
        lane.running -= 1;
        if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(name);
        else this.pump(name, lane);
      });
    }
  }

  private async send(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i]));
    } catch (e) {
      if (batch.length === 1 || !StatementBatcher.refusedByDatabase(e)) batch.forEach((b) => b.reject(e));
      else for (const b of batch) await this.run([b.item]).then(([result]) => b.resolve(result), b.reject);
    }
  }

  /** The next batch: queued items in order, leaving those a conflict key or a held key keeps out. */
  private take(lane: Lane<I, O>): Waiting<I, O>[] {
    const { maxBatch = 200, conflictKey, holds } = this.options;
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < lane.queue.length && batch.length < maxBatch; ) {
      const { item } = lane.queue[i];
      const key = conflictKey ? conflictKey(item) : null;
      if ((key !== null && keys.has(key)) || (holds && lane.held.size > 0 && holds(item).some((h) => lane.held.has(h)))) {
        i++;
        continue;
      }
      if (key !== null) keys.add(key);
      batch.push(...lane.queue.splice(i, 1));
    }
    return batch;
  }
}
