import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { AccountTemplateEntity } from './account-template.entity';

export type NewAccountTemplate = Omit<AccountTemplateEntity, 'ledgerId' | 'createdAt'>;

@Injectable()
export class AccountTemplatesRepository {
  private readonly rows: Repository<AccountTemplateEntity>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.rows = dataSource.getRepository(AccountTemplateEntity);
  }

  /** Null when the name is taken (templates are never replaced). */
  async insert(scope: LedgerScope, template: NewAccountTemplate): Promise<AccountTemplateEntity | null> {
    const result = await this.rows
      .createQueryBuilder()
      .insert()
      .values({ ...template, ledgerId: scope.ledgerId } as QueryDeepPartialEntity<AccountTemplateEntity>)
      .orIgnore()
      .returning('*')
      .execute();
    return (result.raw as unknown[]).length === 0 ? null : this.findByName(scope, template.name);
  }

  findByName(scope: LedgerScope, name: string): Promise<AccountTemplateEntity | null> {
    return this.rows.findOneBy({ ledgerId: scope.ledgerId, name });
  }

  listQuery(scope: LedgerScope): SelectQueryBuilder<AccountTemplateEntity> {
    return this.rows.createQueryBuilder('t').where('t.ledger_id = :ledgerId', { ledgerId: scope.ledgerId });
  }
}
