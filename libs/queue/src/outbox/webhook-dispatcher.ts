import type { Worker } from 'bullmq';
import type Redis from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { DataSource, EntityManager } from 'typeorm';
import type { SecretBox } from '@bursar/crypto';
import { buildDeliveryJob } from '../delivery-job';
import { OutboxPoller } from '../outbox-poller';
import { createQueueConnection } from '../queue-connection';
import type { WebhookService } from '../webhook-job';
import { WebhookPublisher } from '../webhook-publisher';
import { consumeWebhookResults } from '../webhook-results';
import { signingSecrets } from './endpoint-secret';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import type { UnpublishedDelivery, WebhookOutboxTables } from './webhook-outbox.tables';

type Publish = (manager: EntityManager, deliveries: UnpublishedDelivery[]) => Promise<number>;

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
  /** Header prefix of endpoints that set none of their own. */
  brand: string;
  retryDelaysMs: number[];
  redisUrl: string;
  queuePrefix: string;
  relayIntervalMs: number;
  /** See WebhookServiceSettings.WEBHOOK_REPUBLISH_AFTER_MS. */
  republishAfterMs: number;
  logger: Logger;
  /** The service's metrics registry, which gains the outbox lag gauge. */
  registry: Registry;
}

/**
 * A service's half of webhook delivery. A relay loop turns committed event rows into delivery rows
 * and publishes pending deliveries as jobs, each step in one transaction with row locks skipped by
 * other replicas; a slower sweep publishes again deliveries whose job went missing; a consumer
 * records the worker's attempt reports. Nest calls the two hooks.
 */
export class WebhookDispatcher {
  private readonly outbox: WebhookOutboxRepository;
  private connection: Redis | null = null;
  private publisher: WebhookPublisher | null = null;
  private pollers: OutboxPoller[] = [];
  private results: Worker | null = null;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.outbox = new WebhookOutboxRepository(options.tables);
    const outbox = this.outbox;
    // Read on scrape (two indexed one-row lookups): a stalled relay shows as growing age even when
    // the relay loop itself is what stopped, and even when publishing is disabled.
    new Gauge({
      name: 'webhook_outbox_lag_seconds',
      help: 'Age of the oldest outbox row still waiting, by stage: events (not yet fanned out to deliveries), deliveries (not yet queued)',
      labelNames: ['stage'],
      registers: [options.registry],
      async collect() {
        const lag = await outbox.lag(options.dataSource.manager).catch(() => null);
        if (!lag) return;
        this.set({ stage: 'events' }, lag.events);
        this.set({ stage: 'deliveries' }, lag.deliveries);
      },
    });
  }

  onApplicationBootstrap(): void {
    const o = this.options;
    if (!o.transport) {
      o.logger.warn('WEBHOOK_SECRET_KEY is unset: webhook deliveries are recorded but not sent');
      return;
    }
    this.connection = createQueueConnection({ redisUrl: o.redisUrl, logger: o.logger, name: `${o.service}-webhooks` });
    this.publisher = new WebhookPublisher(this.connection, o.queuePrefix);
    const publish = this.publishing(this.publisher, o.transport);
    this.pollers = [
      new OutboxPoller(`${o.service}-webhook-relay`, () => this.relay(publish), o.relayIntervalMs, o.logger),
      // Always reports no work, so it runs once per interval whatever it found.
      new OutboxPoller(`${o.service}-webhook-sweep`, () => this.sweep(publish).then(() => 0), Math.max(100, o.republishAfterMs / 4), o.logger),
    ];
    this.pollers.forEach((p) => p.start());
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
    await Promise.all(this.pollers.map((p) => p.stop()));
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
  private relay(publish: Publish): Promise<number> {
    return this.options.dataSource.transaction(async (manager) => {
      const events = await this.outbox.fanOutEvents(manager, BATCH);
      return events + (await publish(manager, await this.outbox.lockUnpublished(manager, BATCH)));
    });
  }

  private sweep(publish: Publish): Promise<number> {
    return this.options.dataSource.transaction(async (manager) =>
      publish(manager, await this.outbox.lockStale(manager, this.options.republishAfterMs, BATCH)),
    );
  }

  /** Publishes locked deliveries as jobs (each for the attempts it has left) and marks them published. */
  private publishing(publisher: WebhookPublisher, transport: SecretBox): Publish {
    const o = this.options;
    return async (manager, deliveries) => {
      if (deliveries.length === 0) return 0;
      const now = new Date();
      const jobs = deliveries.map((d) =>
        buildDeliveryJob(
          {
            service: o.service,
            brand: d.headerBrand ?? o.brand,
            deliveryId: d.id,
            eventId: d.eventId,
            url: d.url,
            body: d.body,
            secrets: signingSecrets(o.atRest, d, now),
            retryDelaysMs: o.retryDelaysMs,
            attemptsMade: d.attemptsMade,
            traceContext: d.traceContext,
          },
          transport,
        ),
      );
      await publisher.publish(jobs);
      await this.outbox.markPublished(manager, jobs.map((j) => ({ id: j.deliveryId, headers: j.headers })));
      return deliveries.length;
    };
  }
}
