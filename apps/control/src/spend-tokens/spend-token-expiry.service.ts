import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER, retryingTransaction } from '@bursar/service-kit';
import { AuditService } from '../audit/audit.service';
import { ControlSettings } from '../config/control.settings';
import { WebhookEventsService } from '../webhooks/webhook-events.service';
import { presentSpendToken } from './spend-token.presenter';
import { SpendTokensRepository } from './spend-tokens.repository';

const BATCH = 500;

/**
 * Moves expired, unused tokens to `expired` in the background, with their audit event and
 * `spend_token.expired` webhook in the same transaction. Reads already show such tokens as expired;
 * the sweep is what makes the change a recorded, notified fact.
 */
@Injectable()
export class SpendTokenExpiryService implements OnModuleInit, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: SpendTokensRepository,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookEventsService,
    private readonly settings: ControlSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.SPEND_TOKEN_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One batch; answers how many tokens expired. */
  async sweep(): Promise<number> {
    try {
      return await retryingTransaction(this.dataSource, async (em) => {
        const expired = await this.tokens.expireDue(em, BATCH);
        for (const token of expired) {
          const snapshot = presentSpendToken(token);
          await this.audit.append(em, token.workspace_id, {
            subject_type: 'SpendToken',
            subject_id: token.id,
            action: 'spend_token.expired',
            trace_id: null,
            snapshot,
            actor: { type: 'system', id: null },
          });
          await this.webhooks.emit(em, token.workspace_id, 'spend_token.expired', snapshot);
        }
        return expired.length;
      });
    } catch (err) {
      this.logger.warn({ err }, 'spend token expiry sweep failed; retrying next interval');
      return 0;
    }
  }
}
