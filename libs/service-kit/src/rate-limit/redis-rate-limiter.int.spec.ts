import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createRedisClient } from '../redis/redis-connection';
import { LEASE_MS, leaseSize, RATE_LIMIT_TIMEOUT_MS, rateLimitHeaders, RedisRateLimiter } from './redis-rate-limiter';

describe('RedisRateLimiter', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  it('allows `limit` hits per window, then refuses with a Retry-After within the window', async () => {
    const limiter = new RedisRateLimiter(redis, `test:${randomUUID()}`);
    const decisions = await Promise.all(Array.from({ length: 7 }, () => limiter.hit('k', 5, 60_000)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const [refused] = decisions.filter((d) => !d.allowed);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(rateLimitHeaders(refused)).toMatchObject({ 'X-RateLimit-Limit': '5', 'Retry-After': String(refused.retryAfterSeconds) });
    expect((await limiter.hit('other', 5, 60_000)).allowed).toBe(true);
  });

  it('opens a new window once the old one expires', async () => {
    const limiter = new RedisRateLimiter(redis, `test:${randomUUID()}`);
    expect((await limiter.hit('k', 1, 50)).allowed).toBe(true);
    expect((await limiter.hit('k', 1, 50)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 80));
    expect((await limiter.hit('k', 1, 50)).allowed).toBe(true);
  });

  it('lets a request through once Redis is slower than the rate-limit timeout', async () => {
    // A server that completes the client's handshake (refuses HELLO as a RESP2-only server does, then CLIENT ..., INFO) and never answers a script.
    const silent = createServer((socket) =>
      socket.on('data', (data) => {
        for (const command of data.toString().split(/\*\d+\r\n/).slice(1)) {
          const name = command.split('\r\n')[1].toLowerCase();
          if (name === 'hello') socket.write("-ERR unknown command 'hello'\r\n");
          else if (name === 'info') socket.write('$9\r\nloading:0\r\n');
          else if (name === 'client') socket.write('+OK\r\n');
        }
      }),
    );
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const client = createRedisClient(`redis://127.0.0.1:${port}`, pino({ level: 'silent' }), 'test');
    await new Promise((resolve) => client.once('ready', resolve));
    const started = Date.now();
    const decision = await new RedisRateLimiter(client, 'test').hit('k', 1, 1000);
    expect(decision).toMatchObject({ allowed: true, degraded: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(RATE_LIMIT_TIMEOUT_MS - 10);
    expect(Date.now() - started).toBeLessThan(RATE_LIMIT_TIMEOUT_MS + 500);
    client.disconnect();
    silent.close();
  });

  it('keeps no timer once no check waits for Redis', async () => {
    const limiter = new RedisRateLimiter(redis, `test:${randomUUID()}`);
    const pending = Promise.all(Array.from({ length: 5 }, () => limiter.hit('k', 10, 60_000)));
    expect((limiter as unknown as { sweeper: unknown }).sweeper).not.toBeNull();
    expect((await pending).every((d) => d.allowed && !d.degraded)).toBe(true);
    await new Promise((r) => setTimeout(r, RATE_LIMIT_TIMEOUT_MS / 5 + 20));
    expect((limiter as unknown as { sweeper: unknown }).sweeper).toBeNull();
  });

  it('lets requests through when Redis is unreachable', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    const decision = await new RedisRateLimiter(down, 'test').hit('k', 1, 1000);
    expect(decision.allowed).toBe(true);
    down.disconnect();
  });
});

describe('RedisRateLimiter with leases', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const clients = [new Redis(url), new Redis(url)];
  afterAll(() => Promise.all(clients.map((r) => r.quit())));
  const leasing = (r: Redis, prefix: string) => new RedisRateLimiter(r, { prefix, lease: true });

  it('leases no more than the bucket refills in a lease, and not at all below one token per lease', () => {
    expect(leaseSize({ limit: 1200, windowMs: 60_000 })).toBe(20);
    expect(leaseSize({ limit: 100_000_000, windowMs: 60_000 })).toBe(64);
    expect(leaseSize({ limit: 4, windowMs: 60_000 })).toBe(1);
    expect(leaseSize({ limit: 50, windowMs: 1_000 })).toBe(50);
  });

  it('admits exactly the limit across replicas, one Redis answer per lease', async () => {
    const prefix = `test:${randomUUID()}`;
    const [a, b] = clients.map((r) => leasing(r, prefix));
    // Every check against the bucket goes through the private `take`.
    const scripts = jest.spyOn(RedisRateLimiter.prototype as unknown as { take: () => Promise<unknown> }, 'take');
    // 600 per minute: leases of 10; 150 concurrent hits on two replicas.
    const decisions = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 ? a : b).hit('client', 600, 60_000)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(150);
    expect(scripts.mock.calls.length).toBeGreaterThan(0);
    expect(scripts.mock.calls.length).toBeLessThanOrEqual(2 * Math.ceil(75 / 10));
    scripts.mockRestore();
    const more = await Promise.all(Array.from({ length: 500 }, (_, i) => (i % 2 ? a : b).hit('client', 600, 60_000)));
    // The bucket refills during the test: at least the 450 left, at most a few more.
    const admitted = more.filter((d) => d.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(450);
    expect(admitted).toBeLessThan(460);
    const refused = more.find((d) => !d.allowed);
    expect(refused).toMatchObject({ remaining: 0, degraded: false });
    expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('counts down X-RateLimit-Remaining through a lease', async () => {
    const limiter = leasing(clients[0], `test:${randomUUID()}`);
    const first = await limiter.hit('k', 600, 60_000);
    const second = await limiter.hit('k', 600, 60_000);
    expect(first.remaining).toBe(599);
    expect(second.remaining).toBe(598);
  });

  it('gives unused tokens back to the bucket with the next lease', async () => {
    const limiter = leasing(clients[0], `test:${randomUUID()}`);
    const rule = { limit: 1200, windowMs: 60_000 };
    // Leaves 200 in the bucket; a lease then takes 20 of them and this hit one.
    expect((await limiter.consume('k', rule, 1000)).remaining).toBe(200);
    expect((await limiter.hit('k', rule.limit, rule.windowMs)).remaining).toBe(199);
    await new Promise((r) => setTimeout(r, LEASE_MS + 50));
    // The expired lease's 19 go back: 180 + about 21 refilled + 19, less the new lease of 20, plus its 19 left.
    const again = await limiter.hit('k', rule.limit, rule.windowMs);
    expect(again.remaining).toBeGreaterThanOrEqual(218);
    expect(again.remaining).toBeLessThanOrEqual(222);
  });

  it('fails open once for every request waiting on a lease when Redis is unreachable', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    const limiter = leasing(down, 'test');
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.hit('k', 600, 60_000)));
    expect(decisions.every((d) => d.allowed && d.degraded)).toBe(true);
    down.disconnect();
  });
});

describe('RedisRateLimiter across replicas', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const replicas = [new Redis(url), new Redis(url)];
  afterAll(() => Promise.all(replicas.map((r) => r.quit())));

  it('shares one bucket between clients and never over-admits under parallel hits', async () => {
    const prefix = `test:${randomUUID()}`;
    const [a, b] = replicas.map((r) => new RedisRateLimiter(r, prefix));
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).hit('client', 20, 60_000)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(decisions.find((d) => !d.allowed)).toMatchObject({ remaining: 0, retryAfterSeconds: 3, degraded: false });
  });

  it('counts fail-open checks in rate_limiter_unavailable_total', async () => {
    const registry = new Registry();
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    const limiter = new RedisRateLimiter(down, { prefix: 'test', registry });
    const decision = await limiter.consume('k', { limit: 1, windowMs: 1000 });
    expect(decision).toMatchObject({ allowed: true, degraded: true });
    expect(rateLimitHeaders(decision)).not.toHaveProperty('Retry-After');
    expect(await registry.getSingleMetricAsString('rate_limiter_unavailable_total')).toMatch(/ 1$/m);
    down.disconnect();
  });
});
