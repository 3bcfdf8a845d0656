import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsAes256Key, IsPort, ToInt } from '@bursar/service-kit';
import { WebhookQueueSettings } from '@bursar/queue';

/** Environment of the webhook worker, validated once at boot. */
export class WorkerSettings extends WebhookQueueSettings {
  /** Serves health and metrics only. */
  @IsPort()
  WORKER_PORT = 3002;

  /** Deliveries one replica runs at once. */
  @ToInt()
  @IsInt({ message: 'WORKER_CONCURRENCY must be an integer' })
  @Min(1, { message: 'WORKER_CONCURRENCY must be at least 1' })
  WORKER_CONCURRENCY = 50;

  /**
   * Opens the signing secrets sealed in jobs; the same value as the services' WEBHOOK_SECRET_KEY.
   * While unset the worker delivers nothing (the services publish nothing either).
   */
  @IsOptional()
  @IsAes256Key()
  WEBHOOK_SECRET_KEY?: string;

  /** An attempt that has not answered by then counts as failed and is retried. */
  @ToInt()
  @IsInt({ message: 'WEBHOOK_TIMEOUT_MS must be an integer' })
  @Min(100, { message: 'WEBHOOK_TIMEOUT_MS must be at least 100' })
  @Max(60_000, { message: 'WEBHOOK_TIMEOUT_MS must be at most 60000' })
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * How long a replica's hold on a job lasts without renewal; a killed replica's jobs go back to
   * the queue within about this time and another replica delivers them.
   */
  @ToInt()
  @IsInt({ message: 'WORKER_LOCK_DURATION_MS must be an integer' })
  @Min(200, { message: 'WORKER_LOCK_DURATION_MS must be at least 200' })
  WORKER_LOCK_DURATION_MS = 30_000;
}
