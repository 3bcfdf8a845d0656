import type { WebhookService } from './webhook-job';

/** The one queue every service publishes deliveries to and every worker replica consumes. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';

/** Where the worker reports attempts of `service`'s deliveries; only that service consumes it. */
export function webhookResultsQueue(service: WebhookService): string {
  return `webhook-results-${service}`;
}

/** Key prefix of every BullMQ key; deployments sharing one Redis (or parallel tests) pick their own. */
export const DEFAULT_QUEUE_PREFIX = 'bursar';
