import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { PostingEntity } from './posting.entity';

export interface PostingFilter {
  account?: string;
  reconciled?: boolean;
  beforeValueDate?: Date;
  tags?: Record<string, string>;
}

@Injectable()
export class PostingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  listQuery(scope: LedgerScope, filter: PostingFilter): SelectQueryBuilder<PostingEntity> {
    const qb = this.dataSource
      .getRepository(PostingEntity)
      .createQueryBuilder('p')
      .where('p.ledger_id = :ledgerId', { ledgerId: scope.ledgerId });
    if (filter.account !== undefined) qb.andWhere('p.account_id = :account', { account: filter.account });
    if (filter.reconciled !== undefined) qb.andWhere(`p.reconciled_at IS ${filter.reconciled ? 'NOT ' : ''}NULL`);
    if (filter.beforeValueDate) qb.andWhere('p.value_date < :before', { before: filter.beforeValueDate });
    if (filter.tags) qb.andWhere('p.tags @> :tags', { tags: JSON.stringify(filter.tags) });
    return qb;
  }

  async accountExists(scope: LedgerScope, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM accounts WHERE ledger_id = $1 AND id = $2`, [scope.ledgerId, id]);
    return rows.length > 0;
  }
}
