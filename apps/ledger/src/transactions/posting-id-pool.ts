import { Injectable } from '@nestjs/common';
import { TransactionsRepository } from './transactions.repository';

/** Ids one refill draws: a round trip per this many postings. */
const BLOCK = 256;
/** Below this many ids left, the next refill starts before anyone has to wait for it. */
const LOW_WATER = 64;

/**
 * Posting ids drawn ahead from the postings sequence. A write knows its posting ids before it is
 * sent, so its answer, its event and its stored idempotent response are built first and travel
 * with it (one round trip). Every write of this process takes its ids here, in request order, so
 * one process's postings are numbered in the order they were asked for; ids of refused writes are
 * skipped, as a rolled-back nextval would be.
 */
@Injectable()
export class PostingIdPool {
  private ids: string[] = [];
  private refill: Promise<void> | null = null;

  constructor(private readonly transactions: TransactionsRepository) {}

  async take(count: number): Promise<string[]> {
    while (this.ids.length < count) await this.fill(Math.max(BLOCK, count));
    const taken = this.ids.splice(0, count);
    // A failed early refill is tried again by the take that needs it, which then reports the error.
    if (this.ids.length < LOW_WATER) this.fill(BLOCK).catch(() => undefined);
    return taken;
  }

  private fill(count: number): Promise<void> {
    this.refill ??= this.transactions
      .reservePostingIds(count)
      .then((ids) => void this.ids.push(...ids))
      .finally(() => (this.refill = null));
    return this.refill;
  }
}
