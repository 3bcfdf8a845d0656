import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { WorkspaceMembership } from './membership.entity';
import { Workspace } from './workspace.entity';
import { WorkspaceRole } from './workspace-roles';

export interface WorkspaceAccess {
  workspace: Workspace;
  membership: WorkspaceMembership;
}

/** The caller's person (`sub`) is the scope of workspace lookups: nobody sees a workspace they are not in. */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly dataSource: DataSource) {}

  insertWorkspace(em: EntityManager, fields: { name: string; slug: string }): Promise<Workspace> {
    return em.save(em.create(Workspace, fields));
  }

  insertMembership(
    em: EntityManager,
    workspaceId: string,
    fields: { user_sub: string; email: string | null; role: WorkspaceRole },
  ): Promise<WorkspaceMembership> {
    return em.save(em.create(WorkspaceMembership, { workspace_id: workspaceId, ...fields }));
  }

  async findAccess(userSub: string, slug: string): Promise<WorkspaceAccess | null> {
    const workspace = await this.dataSource.getRepository(Workspace).findOneBy({ slug });
    if (!workspace) return null;
    const membership = await this.dataSource
      .getRepository(WorkspaceMembership)
      .findOneBy({ workspace_id: workspace.id, user_sub: userSub });
    return membership ? { workspace, membership } : null;
  }

  async listAccess(userSub: string): Promise<WorkspaceAccess[]> {
    const memberships = await this.dataSource
      .getRepository(WorkspaceMembership)
      .find({ where: { user_sub: userSub }, order: { created_at: 'ASC', id: 'ASC' } });
    if (!memberships.length) return [];
    const workspaces = await this.dataSource
      .getRepository(Workspace)
      .createQueryBuilder('w')
      .where('w.id IN (:...ids)', { ids: memberships.map((m) => m.workspace_id) })
      .getMany();
    const byId = new Map(workspaces.map((w) => [w.id, w]));
    return memberships.map((membership) => ({ workspace: byId.get(membership.workspace_id) as Workspace, membership }));
  }
}
