import { once } from 'node:events';
import Redis from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis client for request paths (rate limits, readiness): commands fail fast while Redis is
 * down instead of queueing, and the client keeps reconnecting in the background. Commands issued
 * in the same event-loop turn (concurrent requests' rate-limit checks) go out in one write.
 */
export function createRedisClient(url: string, logger: Logger, name: string): Redis {
  const client = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reported = false;
  client.on('error', (err) => {
    // One line per outage, not one per reconnect attempt.
    if (!reported) logger.warn({ err: err.message }, 'redis unreachable');
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info('redis reachable again');
    reported = false;
  });
  return client;
}

export const REDIS = Symbol('REDIS');

/** PING, first waiting for a connection in progress (commands are not queued while connecting). */
export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status === 'connecting' || redis.status === 'connect') await once(redis, 'ready');
  await redis.ping();
}
