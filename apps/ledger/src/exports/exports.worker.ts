import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { PolledWorker } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { ExportWriter } from './export.writer';
import { ExportsRepository } from './exports.repository';

/**
 * Works exports in the background, one at a time per process. The database is the queue: each
 * round claims the oldest pending export (or a running one whose heartbeat stopped, so an export
 * whose process died is picked up again) with FOR UPDATE SKIP LOCKED, so replicas share the work
 * without Redis and no export is run by two processes at once.
 */
@Injectable()
export class ExportsWorker extends PolledWorker {
  constructor(
    private readonly exports: ExportsRepository,
    private readonly writer: ExportWriter,
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super('ledger-exports', logger);
  }

  protected get intervalMs(): number {
    return this.settings.LEDGER_EXPORT_POLL_INTERVAL_MS;
  }

  /** Claims and writes one export; answers how many it worked (the poller goes again at once after one). */
  protected async step(): Promise<number> {
    const claimed = await this.exports.claimNext(this.settings.LEDGER_EXPORT_STALE_AFTER_MS);
    if (!claimed) return 0;
    await this.writer.write(claimed);
    return 1;
  }
}
