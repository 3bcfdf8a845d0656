import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { OutboxPoller } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { AuditLogService } from './audit-log.service';

/**
 * Seals committed audit events into their workspace's log every AUDIT_LOG_SEAL_INTERVAL_MS (0: off)
 * and signs the logs that are due. A round drains full batches itself, so the poller always waits
 * its interval after one; a failed round is logged and the next one tries again.
 */
@Injectable()
export class AuditLogSealingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private poller: OutboxPoller | null = null;

  constructor(
    private readonly auditLog: AuditLogService,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'AUDIT_LOG_SEAL_INTERVAL_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.AUDIT_LOG_SEAL_INTERVAL_MS === 0) return;
    this.poller = new OutboxPoller('control-audit-log', () => this.auditLog.round().then(() => 0), this.settings.AUDIT_LOG_SEAL_INTERVAL_MS, this.logger);
    this.poller.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.poller?.stop();
  }
}
