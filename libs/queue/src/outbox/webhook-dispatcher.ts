import type { Worker } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '@bursar/crypto';
import { buildDeliveryJob } from '../delivery-job';
import { OutboxPoller } from '../outbox-poller';
import { createQueueConnection } from '../queue-connection';
import type { WebhookService } from '../webhook-job';
import { WebhookPublisher } from '../webhook-publisher';
import { consumeWebhookResults } from '../webhook-results';
import { signingSecrets } from './endpoint-secret';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import type { WebhookOutboxTables } from './webhook-outbox.tables';

/** Events (and deliveries) handled per transaction. */
const BATCH = 200;

export interface WebhookDispatcherOptions {
  service: WebhookService;
  dataSource: DataSource;
  tables: WebhookOutboxTables;
  /** The service's at-rest key, which seals endpoint secrets in its database. */
  atRest: SecretBox;
  /** The key shared with the worker; null disables publishing (rows wait, nothing is lost). */
  transport: SecretBox | null;
  brand: string;
  retryDelaysMs: number[];
  redisUrl: string;
  queuePrefix: string;
  relayIntervalMs: number;
  logger: Logger;
}

/**
 * A service's half of webhook delivery. A relay loop turns committed event rows into delivery rows
 * and publishes pending deliveries as jobs, each step in one transaction with row locks skipped by
 * other replicas; a consumer records the worker's attempt reports. Nest calls the two hooks.
 */
export class WebhookDispatcher {
  private readonly outbox: WebhookOutboxRepository;
  private connection: Redis | null = null;
  private publisher: WebhookPublisher | null = null;
  private poller: OutboxPoller | null = null;
  private results: Worker | null = null;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.outbox = new WebhookOutboxRepository(options.tables);
  }

  onApplicationBootstrap(): void {
    const o = this.options;
    if (!o.transport) {
      o.logger.warn('WEBHOOK_SECRET_KEY is unset: webhook deliveries are recorded but not sent');
      return;
    }
    this.connection = createQueueConnection({ redisUrl: o.redisUrl, logger: o.logger, name: `${o.service}-webhooks` });
    this.publisher = new WebhookPublisher(this.connection, o.queuePrefix);
    const { publisher, transport } = { publisher: this.publisher, transport: o.transport };
    this.poller = new OutboxPoller(`${o.service}-webhook-relay`, () => this.step(publisher, transport), o.relayIntervalMs, o.logger);
    this.poller.start();
    this.results = consumeWebhookResults({
      service: o.service,
      connection: this.connection,
      prefix: o.queuePrefix,
      concurrency: 20,
      record: async (result) => {
        // Thrown so the queue retries: the delivery's transaction may not have committed yet.
        if (!(await this.outbox.recordResult(o.dataSource.manager, result))) throw new Error(`delivery ${result.deliveryId} not found yet`);
      },
    });
    this.results.on('error', (err) => o.logger.warn({ err: err.message }, 'webhook results consumer error'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.poller?.stop();
    await this.results?.close();
    await this.publisher?.close();
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }

  /** Stops a deleted endpoint's pending deliveries: marks them given up and removes their queued jobs. */
  async abandonEndpoint(tenant: Record<string, string>, endpointId: string): Promise<void> {
    const ids = await this.outbox.abandonPending(this.options.dataSource.manager, tenant, endpointId);
    await this.publisher?.cancel(ids);
  }

  /**
   * One relay round: fan out new events, then publish pending deliveries. Jobs are added before
   * the transaction commits, so a crash between the two republishes (the delivery id is the job
   * id) rather than loses; the worker's report retries until the rows are visible.
   */
  private step(publisher: WebhookPublisher, transport: SecretBox): Promise<number> {
    const o = this.options;
    return o.dataSource.transaction(async (manager) => {
      const events = await this.outbox.fanOutEvents(manager, BATCH);
      const pending = await this.outbox.lockUnpublished(manager, BATCH);
      if (pending.length === 0) return events;
      const now = new Date();
      const jobs = pending.map((d) =>
        buildDeliveryJob(
          {
            service: o.service,
            brand: o.brand,
            deliveryId: d.id,
            eventId: d.eventId,
            url: d.url,
            body: d.body,
            secrets: signingSecrets(o.atRest, d, now),
            retryDelaysMs: o.retryDelaysMs,
          },
          transport,
        ),
      );
      await publisher.publish(jobs);
      await this.outbox.markPublished(manager, jobs.map((j) => ({ id: j.deliveryId, headers: j.headers })));
      return events + pending.length;
    });
  }
}
