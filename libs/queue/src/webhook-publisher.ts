import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { WEBHOOK_DELIVERY_QUEUE } from './queue-names';
import type { WebhookDeliveryJob } from './webhook-job';

/** The backoff type the worker registers; its delays come from each job's `retryDelaysMs`. */
export const WEBHOOK_BACKOFF = 'webhook-schedule';

/** A service's side of the delivery queue: publishes jobs, cancels pending ones. */
export class WebhookPublisher {
  private readonly queue: Queue<WebhookDeliveryJob>;

  constructor(connection: Redis, prefix: string) {
    this.queue = new Queue<WebhookDeliveryJob>(WEBHOOK_DELIVERY_QUEUE, { connection, prefix });
  }

  /**
   * Adds the jobs. The delivery id is the job id, so publishing one twice while it is still queued
   * (a relay retrying after a lost reply, say) adds nothing.
   */
  async publish(jobs: WebhookDeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: job.service,
        data: job,
        opts: {
          jobId: job.deliveryId,
          attempts: job.retryDelaysMs.length + 1,
          backoff: { type: WEBHOOK_BACKOFF },
          removeOnComplete: true,
          // The service's database is the record of failures; Redis keeps only a short tail.
          removeOnFail: { count: 1000 },
        },
      })),
    );
  }

  /** Best effort: a job already running finishes, and its result is ignored by the service. */
  async cancel(deliveryIds: string[]): Promise<void> {
    await Promise.all(deliveryIds.map((id) => this.queue.remove(id).catch(() => 0)));
  }

  /** Jobs waiting, delayed (retries) and active, for the queue depth gauge. */
  counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'delayed', 'active', 'failed');
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
