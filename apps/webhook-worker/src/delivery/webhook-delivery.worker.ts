import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { SecretBox, signPayload } from '@bursar/crypto';
import {
  createQueueConnection,
  openWebhookSecrets,
  WEBHOOK_BACKOFF,
  WEBHOOK_DELIVERY_QUEUE,
  WebhookAttemptResult,
  WebhookDeliveryJob,
  WebhookResultsReporter,
} from '@bursar/queue';
import { LOGGER, MetricsService, runInContinuedTrace } from '@bursar/service-kit';
import { WorkerSettings } from '../config/worker.settings';
import { DeliveryMetrics } from './delivery.metrics';
import { SendOutcome, WebhookSender } from './webhook-sender';

/**
 * Consumes the delivery queue: signs and POSTs each job's exact body, reports the attempt to the
 * owning service, and lets BullMQ retry failures on the job's own schedule. Holds no state: a
 * replica killed mid-delivery leaves its job locked only until the lock lapses, then another
 * replica's stalled-job check puts it back in the queue.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly box: SecretBox | null;
  private readonly sender: WebhookSender;
  private readonly connection: Redis;
  private readonly reporter: WebhookResultsReporter;
  private readonly depthQueue: Queue;
  private readonly metrics: DeliveryMetrics;
  private worker: Worker<WebhookDeliveryJob> | null = null;

  constructor(
    private readonly settings: WorkerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: MetricsService,
  ) {
    this.box = settings.WEBHOOK_SECRET_KEY ? SecretBox.fromBase64(settings.WEBHOOK_SECRET_KEY) : null;
    this.sender = new WebhookSender(settings.WEBHOOK_TIMEOUT_MS, settings.WEBHOOK_ALLOW_PRIVATE_URLS);
    this.connection = createQueueConnection({ redisUrl: settings.REDIS_URL, logger, name: 'webhook-worker' });
    this.reporter = new WebhookResultsReporter(this.connection, settings.WEBHOOK_QUEUE_PREFIX);
    this.depthQueue = new Queue(WEBHOOK_DELIVERY_QUEUE, { connection: this.connection, prefix: settings.WEBHOOK_QUEUE_PREFIX });
    this.metrics = new DeliveryMetrics(metrics.registry, () => this.depthQueue.getJobCounts('waiting', 'delayed', 'active', 'failed'));
  }

  onApplicationBootstrap(): void {
    const box = this.box;
    if (!box) {
      this.logger.error('WEBHOOK_SECRET_KEY is unset: no webhook will be delivered');
      return;
    }
    const lockDuration = this.settings.WORKER_LOCK_DURATION_MS;
    this.worker = new Worker<WebhookDeliveryJob>(WEBHOOK_DELIVERY_QUEUE, (job) => this.traced(job, () => this.deliver(job, box)), {
      connection: this.connection,
      prefix: this.settings.WEBHOOK_QUEUE_PREFIX,
      concurrency: this.settings.WORKER_CONCURRENCY,
      lockDuration,
      stalledInterval: lockDuration,
      // A delivery may be cut short by several crashes in a row before one replica finishes it.
      maxStalledCount: 5,
      settings: {
        backoffStrategy: (attemptsMade, type, _err, job) =>
          type === WEBHOOK_BACKOFF ? ((job?.data as WebhookDeliveryJob | undefined)?.retryDelaysMs[attemptsMade - 1] ?? 0) : 0,
      },
    });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'delivery worker error'));
  }

  async onApplicationShutdown(): Promise<void> {
    // Waits for running deliveries; what does not finish in time is retried by another replica.
    await this.worker?.close();
    await this.reporter.close();
    await this.depthQueue.close();
    this.sender.close();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }

  /**
   * Runs a delivery in a span continuing the trace of the request that caused it; the HTTP
   * instrumentation then sends that trace on as the webhook request's `traceparent`.
   */
  private traced(job: Job<WebhookDeliveryJob>, deliver: () => Promise<void>): Promise<void> {
    const attributes = {
      'messaging.system': 'bullmq',
      'messaging.destination.name': WEBHOOK_DELIVERY_QUEUE,
      'messaging.message.id': job.data.deliveryId,
      'bursar.webhook.service': job.data.service,
      'bursar.webhook.attempt': job.data.firstAttempt + job.attemptsMade,
    };
    return runInContinuedTrace('webhook deliver', job.data.traceContext, attributes, deliver);
  }

  private async deliver(job: Job<WebhookDeliveryJob>, box: SecretBox): Promise<void> {
    const data = job.data;
    const attempt = data.firstAttempt + job.attemptsMade;
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const startedAt = Date.now();
    let secrets: string[];
    try {
      secrets = openWebhookSecrets(box, data.deliveryId, data.sealedSecrets);
    } catch {
      // Never logs the job: it is the secrets that failed to open.
      const outcome = { status: null, headers: null, body: null, error: 'signing secrets could not be opened (WEBHOOK_SECRET_KEY differs from the service)', durationMs: 0 };
      await this.report(job, attempt, true, startedAt, data.headers, outcome);
      throw new UnrecoverableError(outcome.error);
    }
    const requestHeaders = { ...data.headers, [data.signatureHeader]: signPayload(data.body, secrets) };
    const outcome = await this.sender.send(data.url, data.body, requestHeaders);
    await this.report(job, attempt, lastAttempt, startedAt, requestHeaders, outcome);
    if (outcome.error !== null) throw new Error(outcome.error);
  }

  private async report(
    job: Job<WebhookDeliveryJob>,
    attempt: number,
    lastAttempt: boolean,
    startedAt: number,
    requestHeaders: Record<string, string>,
    outcome: SendOutcome,
  ): Promise<void> {
    const data = job.data;
    const ok = outcome.error === null;
    const final = ok || lastAttempt;
    const result: WebhookAttemptResult = {
      deliveryId: data.deliveryId,
      attemptId: randomUUID(),
      attempt,
      outcome: ok ? 'succeeded' : 'failed',
      final,
      nextAttemptAt: final ? null : Date.now() + (data.retryDelaysMs[job.attemptsMade] ?? 0),
      requestHeaders,
      responseStatus: outcome.status,
      responseHeaders: outcome.headers,
      responseBody: outcome.body,
      error: outcome.error,
      startedAt,
      durationMs: outcome.durationMs,
    };
    await this.reporter.report(data.service, result);
    this.metrics.attempt(data.service, ok ? 'succeeded' : final ? 'dead' : 'retrying', outcome.durationMs, data.enqueuedAt);
  }
}
