import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { ReportsService } from '../reports/reports.service';
import { TransactionsRepository } from '../transactions/transactions.repository';
import { CreatePeriodCloseDto } from './dto/period-close.dto';
import { PeriodErrors } from './period-errors';
import { PeriodCloseEntity } from './period-close.entity';
import { presentPeriodClose } from './period-close.presenter';
import { PeriodsRepository } from './periods.repository';

@Injectable()
export class PeriodsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly periods: PeriodsRepository,
    private readonly reports: ReportsService,
    private readonly transactions: TransactionsRepository,
    private readonly events: EventsService,
  ) {}

  /**
   * Freezes the trial balance at period_end and closes the window. Holds the ledger's write lock
   * exclusively, so no posting is in flight while the balance is taken and none lands after.
   */
  async close(scope: LedgerScope, body: CreatePeriodCloseDto): Promise<PeriodCloseEntity> {
    const start = new Date(body.period_start);
    const end = new Date(body.period_end);
    if (end <= start) throw LedgerErrors.error('invalid_request', { message: 'period_end must follow period_start', param: 'period_end' });
    return this.dataSource.transaction(async (manager) => {
      await this.transactions.lockLedgerExclusive(manager, scope);
      const overlap = await this.periods.findOverlapping(manager, scope, start, end);
      if (overlap) throw PeriodErrors.error('already_exists', { details: { period_close: overlap.id } });
      const { body: trialBalance } = await this.reports.trialBalance(scope, end, { exclusive: true }, manager);
      const totals = trialBalance.totals_by_currency as Record<string, { residual: string }>;
      const forced = !trialBalance.healthy;
      if (forced && !body.force) {
        throw PeriodErrors.error('period_close_imbalanced', {
          hint: 'Fix the books, or pass force: true to close anyway (recorded with your label)',
          details: { residual_by_currency: Object.fromEntries(Object.entries(totals).map(([c, t]) => [c, t.residual])) },
        });
      }
      const close = await this.periods.insert(manager, scope, {
        periodStart: start,
        periodEnd: end,
        closedByLabel: body.closed_by_label,
        note: body.note ?? null,
        forced,
        forcedByLabel: forced ? body.closed_by_label : null,
        forcedAt: forced ? new Date() : null,
        trialBalance,
      });
      // A plain close emits nothing (the contract); only a forced one is announced.
      if (forced) await this.events.record(manager, scope, 'period.closed_forced', close.id, presentPeriodClose(close, true));
      return close;
    });
  }

  async get(scope: LedgerScope, id: string): Promise<PeriodCloseEntity> {
    const close = isUUID(id) ? await this.periods.findById(scope, id) : null;
    if (!close) throw LedgerErrors.error('not_found', { message: `No period close ${id}` });
    return close;
  }

  list(scope: LedgerScope, includeReopened: boolean): Promise<PeriodCloseEntity[]> {
    return this.periods.list(scope, includeReopened);
  }

  /** Reopening is terminal for the row; a second reopen is 409 already_exists. */
  async reopen(scope: LedgerScope, id: string, label: string): Promise<PeriodCloseEntity> {
    return this.dataSource.transaction(async (manager) => {
      const close = isUUID(id) ? await this.periods.lock(manager, scope, id) : null;
      if (!close) throw LedgerErrors.error('not_found', { message: `No period close ${id}` });
      if (close.reopenedAt) {
        throw PeriodErrors.error('already_exists', { message: 'This period close was already reopened', hint: 'Close the period again to re-close it' });
      }
      const reopened = await this.periods.reopen(manager, scope, id, label);
      await this.events.record(manager, scope, 'period.reopened', id, presentPeriodClose(reopened, false));
      return reopened;
    });
  }
}
