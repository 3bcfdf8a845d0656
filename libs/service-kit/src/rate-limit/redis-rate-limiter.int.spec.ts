import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createRedisClient } from '../redis/redis-connection';
import { RATE_LIMIT_TIMEOUT_MS, rateLimitHeaders, RedisRateLimiter } from './redis-rate-limiter';

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
