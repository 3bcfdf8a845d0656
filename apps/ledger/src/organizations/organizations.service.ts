import { Injectable } from '@nestjs/common';
import { LedgerErrors } from '../common/ledger-errors';
import { OrganizationEntity } from './organization.entity';
import { OrganizationsRepository } from './organizations.repository';

@Injectable()
export class OrganizationsService {
  constructor(private readonly organizations: OrganizationsRepository) {}

  create(name: string): Promise<OrganizationEntity> {
    return this.organizations.insert(name);
  }

  async get(organizationId: string): Promise<OrganizationEntity> {
    const organization = await this.organizations.findById(organizationId);
    if (!organization) throw LedgerErrors.error('not_found', { message: 'No such organization' });
    return organization;
  }
}
