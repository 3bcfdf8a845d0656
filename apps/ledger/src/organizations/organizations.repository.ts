import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, Repository } from 'typeorm';
import { OrganizationEntity } from './organization.entity';

/**
 * Organizations sit above modes (one organization owns test and live ledgers), so these methods
 * take the organization id alone.
 */
@Injectable()
export class OrganizationsRepository {
  private readonly rows: Repository<OrganizationEntity>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.rows = dataSource.getRepository(OrganizationEntity);
  }

  insert(name: string): Promise<OrganizationEntity> {
    return this.rows.save(this.rows.create({ name, plan: 'free', metadata: {} }));
  }

  findById(organizationId: string): Promise<OrganizationEntity | null> {
    if (!isUUID(organizationId)) return Promise.resolve(null);
    return this.rows.findOneBy({ id: organizationId });
  }

  async setSuspended(organizationId: string, at: Date | null): Promise<void> {
    await this.rows.update({ id: organizationId }, { suspendedAt: at });
  }

  async setPlan(organizationId: string, plan: string): Promise<void> {
    await this.rows.update({ id: organizationId }, { plan });
  }
}
