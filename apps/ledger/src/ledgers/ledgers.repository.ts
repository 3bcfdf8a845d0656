import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, IsNull, Repository } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { updateLocked } from '../common/locked-update';
import { TenantScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { LedgerEntity } from './ledger.entity';

export interface NewLedger {
  name: string;
  description?: string | null;
  metadata?: Record<string, unknown>;
}

export type LedgerChanges = Partial<Pick<LedgerEntity, 'name' | 'description' | 'metadata' | 'archivedAt'>>;

export interface LedgerFilter {
  includeArchived: boolean;
}

/** Oldest first, as the reference lists ledgers. */
const LEDGER_ORDER: ListOrder = {
  list: 'ledgers',
  sortColumn: 'l.created_at',
  sortType: 'timestamptz',
  idColumn: 'l.id',
  idType: 'uuid',
  direction: 'ASC',
};

@Injectable()
export class LedgersRepository {
  private readonly rows: Repository<LedgerEntity>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.rows = dataSource.getRepository(LedgerEntity);
  }

  insert(scope: TenantScope, ledger: NewLedger): Promise<LedgerEntity> {
    return this.rows.save(
      this.rows.create({
        organizationId: scope.organizationId,
        mode: scope.mode,
        name: ledger.name,
        description: ledger.description ?? null,
        metadata: ledger.metadata ?? {},
      }),
    );
  }

  findById(scope: TenantScope, id: string): Promise<LedgerEntity | null> {
    // A malformed id names no row; asking Postgres would fail on the uuid cast.
    if (!isUUID(id)) return Promise.resolve(null);
    return this.rows.findOneBy({ id, organizationId: scope.organizationId, mode: scope.mode });
  }

  /** The ledger a client without a pinned or named ledger works on: the oldest unarchived one. */
  findDefault(scope: TenantScope): Promise<LedgerEntity | null> {
    return this.rows.findOne({
      where: { organizationId: scope.organizationId, mode: scope.mode, archivedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  page<U>(
    scope: TenantScope,
    filter: LedgerFilter,
    pagination: Pagination,
    query: PageRequest,
    present: (row: LedgerEntity) => U,
  ): Promise<ListPage<U>> {
    const qb = this.rows
      .createQueryBuilder('l')
      .where('l.organization_id = :org AND l.mode = :mode', { org: scope.organizationId, mode: scope.mode });
    if (!filter.includeArchived) qb.andWhere('l.archived_at IS NULL');
    return pagination.page(qb, LEDGER_ORDER, scope, query, present);
  }

  /** Applies `change` to the locked row (see updateLocked); null when the ledger is not the tenant's. */
  update(scope: TenantScope, id: string, change: (current: LedgerEntity) => LedgerChanges | null): Promise<LedgerEntity | null> {
    if (!isUUID(id)) return Promise.resolve(null);
    return updateLocked(this.dataSource, LedgerEntity, { id, organizationId: scope.organizationId, mode: scope.mode }, change);
  }
}
