import { randomBytes } from 'node:crypto';
import { testSecretKey } from './test-database';

/**
 * Webhook settings for one test file's services and worker: a shared transport key, queues of the
 * file's own (parallel suites never take each other's jobs), local receivers allowed, and retries
 * `retryBaseMs` apart instead of minutes.
 */
export function webhookTestEnv(label: string, retryBaseMs = 2) {
  return {
    WEBHOOK_SECRET_KEY: testSecretKey(),
    WEBHOOK_QUEUE_PREFIX: `test-${label}-${randomBytes(4).toString('hex')}`,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: String(retryBaseMs),
    WEBHOOK_RELAY_INTERVAL_MS: '10',
  };
}
