import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { sha256Hex } from '@bursar/crypto';
import { RateLimiters, rateLimitHeaders, RedisRateLimiter } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { RateLimitErrors } from './rate-limit.errors';

const MINUTE_MS = 60_000;

/**
 * The contract's two budgets: per agent key on agent routes, per person on workspace routes. The
 * guards that authenticate a caller call this, so routes without a credential (JWKS, cosign verify
 * and consume) are never throttled.
 */
@Injectable()
export class ControlRateLimiter {
  private readonly limiter: RedisRateLimiter;

  constructor(
    limiters: RateLimiters,
    private readonly settings: ControlSettings,
  ) {
    // Leased: a busy key costs one Redis round trip per lease rather than per request.
    this.limiter = limiters.named('control:rl', { lease: true });
  }

  agent(agentId: string, res: Response): Promise<void> {
    return this.take(`agent:${agentId}`, this.settings.AGENT_RATE_LIMIT_PER_MINUTE, res);
  }

  /** A person is their issuer and `sub` together; the key is hashed so no identifier sits in Redis. */
  person(sub: string, res: Response): Promise<void> {
    return this.take(`person:${sha256Hex(`${this.settings.IDENTITY_ISSUER ?? ''}\n${sub}`)}`, this.settings.WORKSPACE_RATE_LIMIT_PER_MINUTE, res);
  }

  private async take(key: string, limit: number, res: Response): Promise<void> {
    const decision = await this.limiter.hit(key, limit, MINUTE_MS);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) throw RateLimitErrors.error('rate_limited', { headers });
    res.set(headers);
  }
}
