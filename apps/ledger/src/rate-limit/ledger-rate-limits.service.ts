import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RateLimiters, rateLimitHeaders, RedisRateLimiter } from '@bursar/service-kit';
import { AccessGrant } from '../auth/access-token.service';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerSettings } from '../config/ledger.settings';

const SECOND_MS = 1000;
/** Methods that only read; every other method is a write for budgets and tenant suspension. */
export const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Per-client budgets, reads and writes counted apart (contract: 100 reads/s, 20 writes/s by
 * default). Shared by all replicas through Redis; when Redis is unreachable requests pass
 * unthrottled (fail open, logged and counted) so a Redis outage never stops bookkeeping.
 */
@Injectable()
export class LedgerRateLimits {
  private readonly limiter: RedisRateLimiter;

  constructor(
    limiters: RateLimiters,
    private readonly settings: LedgerSettings,
  ) {
    this.limiter = limiters.named('ledger:rl');
  }

  /** Counts the request against its client; sets the X-RateLimit-* headers, or throws 429 `rate_limited`. */
  async take(grant: AccessGrant, req: Request, res: Response): Promise<void> {
    const kind = READ_METHODS.has(req.method) ? 'read' : 'write';
    const limit =
      kind === 'read' ? this.settings.LEDGER_RATE_LIMIT_READS_PER_SECOND : this.settings.LEDGER_RATE_LIMIT_WRITES_PER_SECOND;
    const decision = await this.limiter.hit(`${grant.clientId}:${kind}`, limit, SECOND_MS);
    const headers = rateLimitHeaders(decision);
    res.set(headers);
    if (!decision.allowed) {
      throw LedgerErrors.error('rate_limited', {
        message: `More than ${limit} ${kind}s per second for this client`,
        hint: 'Wait Retry-After seconds, then retry',
        details: { limit, kind, retry_after: decision.retryAfterSeconds },
        headers,
      });
    }
  }
}
