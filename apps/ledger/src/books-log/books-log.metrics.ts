import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsService } from '@bursar/service-kit';
import { BooksLogService } from './books-log.service';
import { LogChangesRepository } from './log-changes.repository';

/** How far the books log's sealer is behind, read on scrape: a stopped sealer shows no error, only a growing age. */
@Injectable()
export class BooksLogMetrics {
  constructor(metrics: MetricsService, log: BooksLogService, changes: LogChangesRepository) {
    new Gauge({
      name: 'ledger_log_seal_lag_seconds',
      help: 'Age of the oldest committed change of the ledger database not yet sealed into its books log; 0 when every change is sealed',
      registers: [metrics.registry],
      async collect() {
        const em = log.store.manager;
        const seconds = await log.store
          .position(em)
          .then((at) => changes.unsealedAgeSeconds(em, at))
          .catch(() => null);
        if (seconds !== null) this.set(seconds);
      },
    });
  }
}
