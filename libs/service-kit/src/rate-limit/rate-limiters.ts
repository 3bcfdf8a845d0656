import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { RedisRateLimiter } from './redis-rate-limiter';

/** Makes a service's rate limiters on its request Redis client, logging and counting fail-open checks alike. */
export class RateLimiters {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly registry: Registry,
  ) {}

  /** A limiter whose bucket keys start with `prefix`; `lease` as RedisRateLimiterOptions says. */
  named(prefix: string, { lease = false }: { lease?: boolean } = {}): RedisRateLimiter {
    return new RedisRateLimiter(this.redis, { prefix, logger: this.logger, registry: this.registry, lease });
  }
}
