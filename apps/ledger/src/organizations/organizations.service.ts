import { Injectable, Optional } from '@nestjs/common';
import { LedgerErrors } from '../common/ledger-errors';
import { OrganizationCache } from './organization-cache';
import { OrganizationErrors } from './organization-errors';
import { OrganizationEntity } from './organization.entity';
import { Plan, planFeatures, PlanFeatures } from './plans';
import { OrganizationsRepository } from './organizations.repository';

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    /** The service has one; the operator CLI reads every time. */
    @Optional() private readonly cache?: OrganizationCache,
  ) {}

  create(name: string): Promise<OrganizationEntity> {
    return this.organizations.insert(name);
  }

  async get(organizationId: string): Promise<OrganizationEntity> {
    const organization = await this.organizations.findById(organizationId);
    if (!organization) throw LedgerErrors.error('not_found', { message: 'No such organization' });
    return organization;
  }

  /**
   * The caller's organization, refusing a write while it is suspended (reference R1: a suspended
   * tenant is read-only, so it can still read its books and its capabilities).
   */
  async forRequest(organizationId: string, write: boolean): Promise<OrganizationEntity> {
    const load = () => this.organizations.findById(organizationId);
    const organization = await (this.cache ? this.cache.read(organizationId, load) : load());
    if (!organization) throw LedgerErrors.error('unauthorized', { message: 'The organization of this token no longer exists' });
    if (write && organization.suspendedAt) {
      throw OrganizationErrors.error('tenant_suspended', {
        hint: 'Reads still work; contact the operator to lift the suspension',
        details: { suspended_at: organization.suspendedAt.toISOString() },
      });
    }
    return organization;
  }

  /** Throws 402 `plan_required` unless the organization's plan has `feature`. */
  async requireFeature(organizationId: string, feature: keyof PlanFeatures, operation: string): Promise<void> {
    const organization = await this.get(organizationId);
    if (!planFeatures(organization.plan)[feature]) {
      throw OrganizationErrors.error('plan_required', {
        message: `The ${organization.plan} plan does not include ${operation}`,
        hint: 'Upgrade the plan, or ask the operator to do this for you',
        details: { plan: organization.plan, feature },
      });
    }
  }

  async suspend(organizationId: string, at: Date | null): Promise<OrganizationEntity> {
    await this.get(organizationId);
    await this.organizations.setSuspended(organizationId, at);
    return this.get(organizationId);
  }

  async changePlan(organizationId: string, plan: Plan): Promise<OrganizationEntity> {
    await this.get(organizationId);
    await this.organizations.setPlan(organizationId, plan);
    return this.get(organizationId);
  }
}
