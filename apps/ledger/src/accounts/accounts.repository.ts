import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DataSource, EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { AccountEntity } from './account.entity';
import { lockLedgerRow } from '../common/locked-update';

export type NewAccount = Omit<
  AccountEntity,
  'ledgerId' | 'lockVersion' | 'status' | 'closedAt' | 'closedByLabel' | 'createdAt' | 'updatedAt'
>;

export type AccountChanges = Partial<
  Pick<
    AccountEntity,
    | 'name'
    | 'metadata'
    | 'parentId'
    | 'ledgerableType'
    | 'ledgerableId'
    | 'fundClassification'
    | 'custodyProvider'
    | 'custodyExternalId'
    | 'status'
    | 'closedAt'
    | 'closedByLabel'
  >
>;

export interface AccountFilter {
  type?: string;
  currency?: string;
  kind?: string;
  counterpartyRef?: string;
  fundClassification?: string;
  custodyProvider?: string;
  parentId?: string;
  ledgerableType?: string;
  ledgerableId?: string;
}

const FILTER_COLUMNS: Record<keyof AccountFilter, string> = {
  type: 'type',
  currency: 'currency',
  kind: 'account_kind',
  counterpartyRef: 'counterparty_ref',
  fundClassification: 'fund_classification',
  custodyProvider: 'custody_provider',
  parentId: 'parent_id',
  ledgerableType: 'ledgerable_type',
  ledgerableId: 'ledgerable_id',
};

@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private rows(manager?: EntityManager): Repository<AccountEntity> {
    return (manager ?? this.dataSource.manager).getRepository(AccountEntity);
  }

  /** Null when the id is taken. */
  async insert(manager: EntityManager, scope: LedgerScope, account: NewAccount): Promise<AccountEntity | null> {
    const result = await this.rows(manager)
      .createQueryBuilder()
      .insert()
      .values({ ...account, ledgerId: scope.ledgerId } as QueryDeepPartialEntity<AccountEntity>)
      .orIgnore()
      .returning('id')
      .execute();
    if ((result.raw as unknown[]).length === 0) return null;
    return this.findById(scope, account.id, manager);
  }

  findById(scope: LedgerScope, id: string, manager?: EntityManager): Promise<AccountEntity | null> {
    return this.rows(manager).findOneBy({ ledgerId: scope.ledgerId, id });
  }

  /** Reads and locks the account until the transaction ends; postings lock accounts the same way. */
  lock(manager: EntityManager, scope: LedgerScope, id: string): Promise<AccountEntity | null> {
    return lockLedgerRow(this.rows(manager), scope, id);
  }

  /** Applies `changes`, bumping lock_version and updated_at. */
  async update(manager: EntityManager, scope: LedgerScope, id: string, changes: AccountChanges): Promise<AccountEntity> {
    await this.rows(manager)
      .createQueryBuilder()
      .update()
      .set({ ...changes, lockVersion: () => 'lock_version + 1', updatedAt: () => 'clock_timestamp()' } as QueryDeepPartialEntity<AccountEntity>)
      .where('ledger_id = :ledgerId AND id = :id', { ledgerId: scope.ledgerId, id })
      .execute();
    const updated = await this.findById(scope, id, manager);
    if (!updated) throw new Error(`account ${id} vanished inside its own transaction`);
    return updated;
  }

  listQuery(scope: LedgerScope, filter: AccountFilter): SelectQueryBuilder<AccountEntity> {
    const qb = this.rows().createQueryBuilder('a').where('a.ledger_id = :ledgerId', { ledgerId: scope.ledgerId });
    for (const [key, column] of Object.entries(FILTER_COLUMNS) as [keyof AccountFilter, string][]) {
      const value = filter[key];
      if (value !== undefined) qb.andWhere(`a.${column} = :${key}`, { [key]: value });
    }
    return qb;
  }
}
