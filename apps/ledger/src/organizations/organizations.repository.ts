import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { preparedQuery } from '@bursar/service-kit';
import { isUUID } from 'class-validator';
import { DataSource, Repository } from 'typeorm';
import { OrganizationEntity } from './organization.entity';

interface OrganizationRow {
  id: string;
  name: string;
  plan: string;
  metadata: Record<string, unknown>;
  suspended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Organizations sit above modes (one organization owns test and live ledgers), so these methods
 * take the organization id alone.
 */
@Injectable()
export class OrganizationsRepository {
  private readonly rows: Repository<OrganizationEntity>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.rows = dataSource.getRepository(OrganizationEntity);
  }

  insert(name: string): Promise<OrganizationEntity> {
    return this.rows.save(this.rows.create({ name, plan: 'free', metadata: {} }));
  }

  findById(organizationId: string): Promise<OrganizationEntity | null> {
    if (!isUUID(organizationId)) return Promise.resolve(null);
    return this.readById(organizationId);
  }

  /** Every authenticated request reads its organization: plain SQL skips the query builder's per-call work. */
  private async readById(organizationId: string): Promise<OrganizationEntity | null> {
    const [row] = await preparedQuery<OrganizationRow>(
      this.dataSource,
      `SELECT id, name, plan, metadata, suspended_at, created_at, updated_at FROM organizations WHERE id = $1`,
      [organizationId],
    );
    if (!row) return null;
    return Object.assign(new OrganizationEntity(), {
      id: row.id,
      name: row.name,
      plan: row.plan,
      metadata: row.metadata,
      suspendedAt: row.suspended_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
  }

  async setSuspended(organizationId: string, at: Date | null): Promise<void> {
    await this.rows.update({ id: organizationId }, { suspendedAt: at });
  }

  async setPlan(organizationId: string, plan: string): Promise<void> {
    await this.rows.update({ id: organizationId }, { plan });
  }
}
