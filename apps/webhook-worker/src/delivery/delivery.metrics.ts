import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'dead';

/** Prometheus series of the worker: outcomes, attempt latency, event-to-receipt time, queue depth. */
export class DeliveryMetrics {
  private readonly deliveries: Counter<'service' | 'outcome'>;
  private readonly attemptDuration: Histogram<'service'>;
  private readonly receiptLatency: Histogram<'service'>;

  constructor(registry: Registry, queueCounts: () => Promise<Record<string, number>>) {
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Delivery attempts by outcome: succeeded, retrying (failed, another attempt follows), dead (last attempt failed)',
      labelNames: ['service', 'outcome'],
      registers: [registry],
    });
    const seconds = (name: string, help: string, buckets: number[]) =>
      new Histogram({ name, help, labelNames: ['service'], buckets, registers: [registry] });
    this.attemptDuration = seconds(
      'webhook_attempt_duration_seconds',
      'Time from sending a delivery to the end of the response (or the error)',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    );
    this.receiptLatency = seconds(
      'webhook_enqueue_to_receipt_seconds',
      'Time from the service enqueuing a delivery to the receiver acknowledging it',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 60, 3600],
    );
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Delivery jobs in the queue by state (waiting, delayed = awaiting a retry, active, failed = dead, kept briefly)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const counts = await queueCounts().catch(() => ({}));
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      },
    });
  }

  attempt(service: string, outcome: DeliveryOutcome, durationMs: number, enqueuedAt: number): void {
    this.deliveries.inc({ service, outcome });
    this.attemptDuration.observe({ service }, durationMs / 1000);
    if (outcome === 'succeeded') this.receiptLatency.observe({ service }, (Date.now() - enqueuedAt) / 1000);
  }
}
