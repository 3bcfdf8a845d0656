import { QueryFailedError } from 'typeorm';

/**
 * Runs one statement for many concurrent callers outside any transaction: calls arriving while a
 * batch is in flight wait and go together in the next one, so under load many requests share one
 * round trip (and one commit) while a lone request goes at once. Each caller gets its own result. A
 * batch the database refused is retried item by item, so one bad item fails alone; any other
 * failure (no connection, say) fails the whole batch at once rather than once per item.
 */
export class StatementBatcher<I, O> {
  private readonly queue: { item: I; resolve(result: O): void; reject(e: unknown): void }[] = [];
  private flushing = false;

  /**
   * `run` answers one result per item, in order. Items with the same `conflictKey` never share a
   * batch (a later one waits for the next), for statements that may touch a row once only.
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch?: number; conflictKey?: (item: I) => string | null } = {},
  ) {}

  private static refusedByDatabase(e: unknown): boolean {
    // The server's refusals carry a five-character SQLSTATE; connection failures carry none (or an errno name).
    const code = e instanceof QueryFailedError ? (e.driverError as { code?: unknown }).code : undefined;
    return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length) {
      const batch = this.take();
      try {
        const results = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]));
      } catch (e) {
        if (batch.length === 1 || !StatementBatcher.refusedByDatabase(e)) batch.forEach((b) => b.reject(e));
        else for (const b of batch) await this.run([b.item]).then(([result]) => b.resolve(result), b.reject);
      }
    }
    this.flushing = false;
  }

  private take(): typeof this.queue {
    const { maxBatch = 200, conflictKey } = this.options;
    if (!conflictKey) return this.queue.splice(0, maxBatch);
    const batch: typeof this.queue = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.queue.length && batch.length < maxBatch; ) {
      const key = conflictKey(this.queue[i].item);
      if (key !== null && keys.has(key)) {
        i++;
        continue;
      }
      if (key !== null) keys.add(key);
      batch.push(...this.queue.splice(i, 1));
    }
    return batch;
  }
}
