import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { PolledWorker } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { AuditLogService } from './audit-log.service';

/**
 * Seals committed audit events into their workspace's log every AUDIT_LOG_SEAL_INTERVAL_MS (0: off)
 * and signs the logs that are due. A round drains full batches itself, so the poller always waits
 * its interval after one; a failed round is logged and the next one tries again.
 */
@Injectable()
export class AuditLogSealingService extends PolledWorker {
  constructor(
    private readonly auditLog: AuditLogService,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'AUDIT_LOG_SEAL_INTERVAL_MS'>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super('control-audit-log', logger);
  }

  protected get intervalMs(): number {
    return this.settings.AUDIT_LOG_SEAL_INTERVAL_MS;
  }

  protected async step(): Promise<number> {
    await this.auditLog.round();
    return 0;
  }
}
