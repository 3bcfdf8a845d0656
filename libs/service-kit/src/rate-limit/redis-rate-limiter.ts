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
 * refills at `limit` per window. It first takes back `refund` tokens a lease did not use (never
 * above capacity), then grants up to `cost` tokens, at least `least` or none; returns
 * {granted, remaining, retry_ms, reset_ms}.
 */
const TOKEN_BUCKET = `
local capacity = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local least = tonumber(ARGV[4])
local refund = tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local rate = capacity / window_ms
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + refund + math.max(0, now - ts) * rate)
local granted = 0
local retry_ms = 0
if tokens >= least then
  granted = math.min(cost, math.floor(tokens))
  tokens = tokens - granted
else
  retry_ms = math.ceil((least - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], window_ms * 2)
return {granted, math.floor(tokens), retry_ms, math.ceil((capacity - tokens) / rate)}
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
  /** Lets `hit` take tokens a lease at a time (see `leaseSize`); off by default. */
  lease?: boolean;
}

/** How long leased tokens stay usable in this process before going back to the bucket. */
export const LEASE_MS = 1_000;
/** Most tokens one lease takes. */
const MAX_LEASE = 64;
/** Keys kept before expired leases are dropped (their unused tokens then stay taken: stricter, never looser). */
const MAX_LEASED_KEYS = 10_000;

/**
 * Tokens one lease takes: what the bucket refills during a lease's life, so a lease shifts a
 * request's token by at most that much time; 1 (no lease) for limits below one token per lease.
 */
export function leaseSize(rule: RateLimitRule): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor((rule.limit * Math.min(LEASE_MS, rule.windowMs)) / rule.windowMs)));
}

/** Tokens a lease took from a key's bucket, handed out here one per request until spent or expired. */
interface Lease {
  tokens: number;
  expiresAt: number;
  /** The bucket's answer when the lease was taken (remaining after it). */
  decision: RateLimitDecision;
}

/** A key's lease and the request to Redis that is renewing it, which concurrent requests of the key wait for. */
interface LeaseState {
  lease: Lease | null;
  renewing: Promise<RateLimitDecision> | null;
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
  /** Per key, when leasing; a key leaves once its lease is spent or expired and nothing renews it. */
  private readonly leases = new Map<string, LeaseState>();

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

  /**
   * Takes one request from `key`'s allowance of `limit` per `windowMs`. With `lease`, one Redis
   * round trip takes up to `leaseSize` tokens and later requests of the key take them here: the
   * bucket is shared and counted as before (a lease never takes more than it holds), tokens unused
   * after LEASE_MS go back to it with the key's next lease, and requests of a key arriving while
   * its lease is renewed wait for that one round trip instead of each making their own.
   */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const rule = { limit, windowMs };
    const size = this.options.lease ? leaseSize(rule) : 1;
    return size > 1 ? this.leased(key, rule, size) : this.consume(key, rule);
  }

  async consume(key: string, rule: RateLimitRule, cost = 1): Promise<RateLimitDecision> {
    return (await this.take(key, rule, cost, cost, 0)).decision;
  }

  private async leased(key: string, rule: RateLimitRule, size: number): Promise<RateLimitDecision> {
    for (;;) {
      let state = this.leases.get(key);
      const lease = state?.lease;
      if (lease && lease.tokens > 0 && lease.expiresAt > performance.now()) {
        lease.tokens -= 1;
        return { ...lease.decision, remaining: lease.decision.remaining + lease.tokens };
      }
      if (!state) this.leases.set(key, (state = { lease: null, renewing: null }));
      const decision = await (state.renewing ?? this.renew(key, rule, size, state));
      // Refused or failed open: every request that waited for this answer gets it.
      if (!decision.allowed || decision.degraded) return decision;
    }
  }

  /** Takes a new lease for `key`, giving back what the old one left. */
  private renew(key: string, rule: RateLimitRule, size: number, state: LeaseState): Promise<RateLimitDecision> {
    const left = state.lease?.tokens ?? 0;
    state.lease = null;
    if (this.leases.size > MAX_LEASED_KEYS) this.dropExpired();
    state.renewing = this.take(key, rule, size, 1, left).then(({ decision, granted }) => {
      state.renewing = null;
      if (granted > 0) state.lease = { tokens: granted, expiresAt: performance.now() + Math.min(LEASE_MS, rule.windowMs), decision };
      else this.leases.delete(key);
      return decision;
    });
    return state.renewing;
  }

  private dropExpired(): void {
    const now = performance.now();
    for (const [key, state] of this.leases) if (!state.renewing && (!state.lease || state.lease.expiresAt <= now)) this.leases.delete(key);
  }

  /** One check against the bucket: up to `cost` tokens, at least `least` or none, after giving back `refund`. */
  private async take(key: string, rule: RateLimitRule, cost: number, least: number, refund: number): Promise<{ decision: RateLimitDecision; granted: number }> {
    try {
      const [granted, remaining, retryMs, resetMs] = await this.withTimeout(
        this.redis.bursarTokenBucket(`${this.options.prefix}:${key}`, rule.limit, rule.windowMs, cost, least, refund),
      );
      if (this.outage) this.options.logger?.info('rate limiter: redis reachable again, limits enforced');
      this.outage = false;
      const allowed = granted > 0;
      const decision = {
        allowed,
        limit: rule.limit,
        remaining,
        resetSeconds: Math.ceil(resetMs / 1000),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(retryMs / 1000)),
        degraded: false,
      };
      return { decision, granted };
    } catch (err) {
      this.unavailable?.inc();
      if (!this.outage) {
        this.options.logger?.warn({ err: (err as Error).message }, 'rate limiter: redis unreachable, allowing requests unlimited');
      }
      this.outage = true;
      return { decision: { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds: 0, retryAfterSeconds: 0, degraded: true }, granted: 0 };
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
