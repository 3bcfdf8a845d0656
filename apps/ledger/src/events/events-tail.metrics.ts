import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsService } from '@bursar/service-kit';
import { EventsRepository } from './events.repository';

/**
 * How long the events tail has been held back by an open transaction. Read on scrape (one query on
 * pg_stat_activity): readers see no error when a forgotten session stalls the tail, only silence.
 */
@Injectable()
export class EventsTailMetrics {
  constructor(metrics: MetricsService, events: EventsRepository) {
    new Gauge({
      name: 'ledger_events_tail_held_back_seconds',
      help: 'Age of the oldest open transaction in the ledger database holding a transaction id; the events tail serves nothing committed after it began',
      registers: [metrics.registry],
      async collect() {
        const seconds = await events.tailHeldBackSeconds().catch(() => null);
        if (seconds !== null) this.set(seconds);
      },
    });
  }
}
