import Redis from 'ioredis';
import type { Logger } from 'pino';
import { DEFAULT_QUEUE_PREFIX } from './queue-names';

export interface QueueConnectionOptions {
  redisUrl: string;
  prefix?: string;
  logger: Logger;
  /** Shown in CLIENT LIST, to tell the processes apart. */
  name: string;
}

/**
 * An ioredis connection for BullMQ. Unlike request-path clients it retries commands for as long
 * as Redis is away (BullMQ requires `maxRetriesPerRequest: null`), so queues resume by themselves.
 */
export function createQueueConnection(options: QueueConnectionOptions): Redis {
  const connection = new Redis(options.redisUrl, {
    connectionName: options.name,
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let reported = false;
  connection.on('error', (err) => {
    if (!reported) options.logger.warn({ err: err.message, connection: options.name }, 'queue redis unreachable');
    reported = true;
  });
  connection.on('ready', () => {
    reported = false;
  });
  return connection;
}

export function queuePrefix(prefix?: string): string {
  return prefix ?? DEFAULT_QUEUE_PREFIX;
}
