/**
 * Runs one statement for many concurrent callers outside any transaction: calls arriving while a
 * batch is in flight wait and go together in the next one, so under load many requests share one
 * round trip (and one commit) while a lone request goes at once. Each caller gets its own result. A
 * failed batch is retried item by item, so one bad item fails alone.
 */
export class StatementBatcher<I, O> {
  private readonly queue: { item: I; resolve(result: O): void; reject(e: unknown): void }[] = [];
  private flushing = false;

  /** `run` answers one result per item, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 200,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]));
      } catch (e) {
        if (batch.length === 1) batch[0].reject(e);
        else for (const b of batch) await this.run([b.item]).then(([result]) => b.resolve(result), b.reject);
      }
    }
    this.flushing = false;
  }
}
