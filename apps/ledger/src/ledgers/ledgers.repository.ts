import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, Repository } from 'typeorm';
import { TenantScope } from '../common/mode';
import { LedgerEntity } from './ledger.entity';

export interface NewLedger {
  name: string;
  description?: string | null;
  metadata?: Record<string, unknown>;
}

@Injectable()
export class LedgersRepository {
  private readonly rows: Repository<LedgerEntity>;

  constructor(@InjectDataSource() dataSource: DataSource) {
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
}
