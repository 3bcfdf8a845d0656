import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';

/** How many requests a key may make per window. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Seconds until the allowance is full again (X-RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds to wait before the next request can pass; 0 when allowed (Retry-After). */
  retryAfterSeconds: number;
  /** True when Redis could not be asked and the request was let through (fail open). */
  degraded: boolean;
}

/**
 * Token bucket in one Lua script, so check-and-take is atomic and every replica shares the bucket.
 * Time comes from Redis (TIME), not from each replica's clock. The bucket holds `limit` tokens and
 * refills at `limit` per window; returns {allowed, remaining, retry_ms, reset_ms}.
 */
const TOKEN_BUCKET = `
local capacity = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local rate = capacity / window_ms
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local allowed = 0
local retry_ms = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry_ms = math.ceil((cost - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], window_ms * 2)
return {allowed, math.floor(tokens), retry_ms, math.ceil((capacity - tokens) / rate)}
`;

export interface RedisRateLimiterOptions {
  /** Prefix of every bucket key, e.g. `ledger:rl`. */
  prefix: string;
  /** Warned once per Redis outage. */
  logger?: Logger;
  /** Where the `rate_limiter_unavailable_total` counter is registered. */
  registry?: Registry;
  /** Longest wait for Redis before failing open (default RATE_LIMIT_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * How long a request waits for its rate-limit answer. Bounded per check, not on the shared client,
 * so a slow moment never makes the readiness probe report Redis down.
 */
export const RATE_LIMIT_TIMEOUT_MS = 250;

interface Waiting {
  deadline: number;
  ms: number;
  reject(err: Error): void;
}

type WithScript = Redis & { bursarTokenBucket(key: string, ...args: number[]): Promise<[number, number, number, number]> };

/**
 * A rate limiter shared by all replicas through Redis. When Redis cannot answer (down, slow),
 * it fails open: the request is allowed, a warning is logged once per outage and
 * `rate_limiter_unavailable_total` counts the skipped checks, so losing Redis never stops traffic.
 */
export class RedisRateLimiter {
  private readonly redis: WithScript;
  private readonly unavailable?: Counter;
  private outage = false;
  /** Checks waiting for Redis, each failed open once its deadline passes. */
  private readonly waiting = new Set<Waiting>();
  private sweeper: NodeJS.Timeout | null = null;

  private readonly options: RedisRateLimiterOptions;

  /** `options` may be just the key prefix. */
  constructor(redis: Redis, options: RedisRateLimiterOptions | string) {
    this.options = typeof options === 'string' ? { prefix: options } : options;
    this.redis = redis as WithScript;
    if (typeof this.redis.bursarTokenBucket !== 'function') {
      redis.defineCommand('bursarTokenBucket', { numberOfKeys: 1, lua: TOKEN_BUCKET });
    }
    const { registry } = this.options;
    if (registry) {
      const name = 'rate_limiter_unavailable_total';
      this.unavailable =
        (registry.getSingleMetric(name) as Counter | undefined) ??
        new Counter({ name, help: 'Rate-limit checks skipped (request allowed) because Redis was unreachable', registers: [registry] });
    }
  }

  /** Takes one request from `key`'s allowance of `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    return this.consume(key, { limit, windowMs });
  }

  async consume(key: string, rule: RateLimitRule, cost = 1): Promise<RateLimitDecision> {
    try {
      const [allowed, remaining, retryMs, resetMs] = await this.withTimeout(
        this.redis.bursarTokenBucket(`${this.options.prefix}:${key}`, rule.limit, rule.windowMs, cost),
      );
      if (this.outage) this.options.logger?.info('rate limiter: redis reachable again, limits enforced');
      this.outage = false;
      return {
        allowed: allowed === 1,
        limit: rule.limit,
        remaining,
        resetSeconds: Math.ceil(resetMs / 1000),
        retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(retryMs / 1000)),
        degraded: false,
      };
    } catch (err) {
      this.unavailable?.inc();
      if (!this.outage) {
        this.options.logger?.warn({ err: (err as Error).message }, 'rate limiter: redis unreachable, allowing requests unlimited');
      }
      this.outage = true;
      return { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds: 0, retryAfterSeconds: 0, degraded: true };
    }
  }

  /**
   * Bounds the wait for Redis. One sweeping timer serves every check in flight (instead of a timer
   * and a race per check): a check fails open between `timeoutMs` and a fifth of it later.
   */
  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    const ms = this.options.timeoutMs ?? RATE_LIMIT_TIMEOUT_MS;
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = { deadline: performance.now() + ms, ms, reject };
      this.waiting.add(waiting);
      if (!this.sweeper) this.sweeper = setInterval(() => this.sweep(), Math.max(1, Math.ceil(ms / 5)));
      promise.then(
        (value) => {
          this.waiting.delete(waiting);
          resolve(value);
        },
        (err: unknown) => {
          this.waiting.delete(waiting);
          reject(err);
        },
      );
    });
  }

  private sweep(): void {
    const now = performance.now();
    for (const waiting of this.waiting) {
      if (waiting.deadline > now) continue;
      this.waiting.delete(waiting);
      waiting.reject(new Error(`redis did not answer within ${waiting.ms} ms`));
    }
    if (this.waiting.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }
}

/** The response headers of a decision: X-RateLimit-Limit/-Remaining/-Reset, plus Retry-After when refused. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
    ...(!decision.allowed && { 'Retry-After': String(decision.retryAfterSeconds) }),
  };
}
