export const WORKSPACE_ROLES = ['owner', 'admin', 'member'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export const CAPABILITIES = ['read', 'approve', 'manage_policy', 'manage_members'] as const;
export type Capability = (typeof CAPABILITIES)[number];

const GRANTS: Record<WorkspaceRole, readonly Capability[]> = {
  owner: ['read', 'approve', 'manage_policy', 'manage_members'],
  admin: ['read', 'approve', 'manage_policy'],
  member: ['read'],
};

export function capabilitiesOf(role: WorkspaceRole): Capability[] {
  return [...GRANTS[role]];
}
