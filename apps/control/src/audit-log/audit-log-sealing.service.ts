import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { AuditLogService } from './audit-log.service';

/**
 * Seals committed audit events into their workspace's log every AUDIT_LOG_SEAL_INTERVAL_MS and signs
 * the logs that are due. One round at a time (the next is scheduled when one ends); a failed round
 * is logged and the next one tries again. Shutdown waits for the round in flight, so it never meets
 * a closed pool.
 */
@Injectable()
export class AuditLogSealingService implements OnModuleInit, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly auditLog: AuditLogService,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'AUDIT_LOG_SEAL_INTERVAL_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    if (this.settings.AUDIT_LOG_SEAL_INTERVAL_MS > 0) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.seal().finally(() => this.schedule());
    }, this.settings.AUDIT_LOG_SEAL_INTERVAL_MS);
    this.timer.unref();
  }

  private async seal(): Promise<void> {
    try {
      await this.auditLog.sealRound();
      await this.auditLog.signDue();
    } catch (err) {
      this.logger.warn({ err }, 'audit log sealing failed; retrying next interval');
    }
  }
}
