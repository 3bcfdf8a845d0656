import { OrganizationEntity } from './organization.entity';

export function presentOrganization(organization: OrganizationEntity) {
  return {
    object: 'organization' as const,
    id: organization.id,
    name: organization.name,
    plan: organization.plan,
    metadata: organization.metadata,
    // Machine clients are not members of the organization, so they have no role in it.
    viewer_role: null,
    created_at: organization.createdAt.toISOString(),
    updated_at: organization.updatedAt.toISOString(),
  };
}
