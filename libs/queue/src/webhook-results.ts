import { Job, Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { webhookResultsQueue } from './queue-names';
import type { WebhookAttemptResult, WebhookService } from './webhook-job';

/** The worker's side of the results channel: one queue per owning service. */
export class WebhookResultsReporter {
  private readonly queues = new Map<WebhookService, Queue<WebhookAttemptResult>>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  async report(service: WebhookService, result: WebhookAttemptResult): Promise<void> {
    await this.queue(service).add('attempt', result, {
      // The delivery row may not be committed yet: retried over about three minutes of a running
      // consumer (while no service consumes, the result simply waits in the queue).
      attempts: 12,
      backoff: { type: 'exponential', delay: 50 },
      removeOnComplete: true,
      removeOnFail: { count: 1000 },
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }

  private queue(service: WebhookService): Queue<WebhookAttemptResult> {
    let queue = this.queues.get(service);
    if (!queue) {
      queue = new Queue<WebhookAttemptResult>(webhookResultsQueue(service), { connection: this.connection, prefix: this.prefix });
      this.queues.set(service, queue);
    }
    return queue;
  }
}

/**
 * A service's consumer of its results queue. `record` must be idempotent (results can arrive
 * twice) and must throw when the delivery row is not visible yet, so the result is retried.
 */
export function consumeWebhookResults(options: {
  service: WebhookService;
  connection: Redis;
  prefix: string;
  concurrency: number;
  record: (result: WebhookAttemptResult) => Promise<void>;
}): Worker<WebhookAttemptResult> {
  return new Worker<WebhookAttemptResult>(
    webhookResultsQueue(options.service),
    (job: Job<WebhookAttemptResult>) => options.record(job.data),
    { connection: options.connection, prefix: options.prefix, concurrency: options.concurrency },
  );
}
