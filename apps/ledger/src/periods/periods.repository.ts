import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { LedgerScope } from '../common/mode';
import { PeriodCloseEntity } from './period-close.entity';
import { lockLedgerRow } from '../common/locked-update';

export type NewPeriodClose = Pick<
  PeriodCloseEntity,
  'periodStart' | 'periodEnd' | 'closedByLabel' | 'note' | 'forced' | 'forcedByLabel' | 'forcedAt' | 'trialBalance'
>;

@Injectable()
export class PeriodsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private rows(manager?: EntityManager): Repository<PeriodCloseEntity> {
    return (manager ?? this.dataSource.manager).getRepository(PeriodCloseEntity);
  }

  /** A close still in force whose window overlaps [start, end). */
  findOverlapping(manager: EntityManager, scope: LedgerScope, start: Date, end: Date): Promise<PeriodCloseEntity | null> {
    return this.rows(manager)
      .createQueryBuilder('c')
      .where('c.ledger_id = :ledgerId AND c.reopened_at IS NULL AND c.period_start < :end AND c.period_end > :start', {
        ledgerId: scope.ledgerId,
        start,
        end,
      })
      .getOne();
  }

  async insert(manager: EntityManager, scope: LedgerScope, close: NewPeriodClose): Promise<PeriodCloseEntity> {
    const result = await this.rows(manager)
      .createQueryBuilder()
      .insert()
      .values({ ...close, ledgerId: scope.ledgerId } as QueryDeepPartialEntity<PeriodCloseEntity>)
      .returning('id')
      .execute();
    return this.reread(manager, scope, (result.raw as { id: string }[])[0].id);
  }

  /** A row this transaction just wrote. */
  private async reread(manager: EntityManager, scope: LedgerScope, id: string): Promise<PeriodCloseEntity> {
    const row = await this.findById(scope, id, manager);
    if (!row) throw new Error(`period close ${id} vanished inside its own transaction`);
    return row;
  }

  findById(scope: LedgerScope, id: string, manager?: EntityManager): Promise<PeriodCloseEntity | null> {
    return this.rows(manager).findOneBy({ ledgerId: scope.ledgerId, id });
  }

  lock(manager: EntityManager, scope: LedgerScope, id: string): Promise<PeriodCloseEntity | null> {
    return lockLedgerRow(this.rows(manager), scope, id);
  }

  async reopen(manager: EntityManager, scope: LedgerScope, id: string, label: string): Promise<PeriodCloseEntity> {
    await this.rows(manager).update({ ledgerId: scope.ledgerId, id }, { reopenedAt: new Date(), reopenedByLabel: label });
    return this.reread(manager, scope, id);
  }

  /** Newest period first. */
  list(scope: LedgerScope, includeReopened: boolean): Promise<PeriodCloseEntity[]> {
    const qb = this.rows().createQueryBuilder('c').where('c.ledger_id = :ledgerId', { ledgerId: scope.ledgerId });
    if (!includeReopened) qb.andWhere('c.reopened_at IS NULL');
    return qb.orderBy('c.period_start', 'DESC').addOrderBy('c.created_at', 'DESC').getMany();
  }
}
