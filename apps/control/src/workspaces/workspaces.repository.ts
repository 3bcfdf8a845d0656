import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { AgentKeyCache } from '../agents/agent-key-cache';
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
  constructor(
    private readonly dataSource: DataSource,
    private readonly agentKeys: AgentKeyCache,
  ) {}

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

  /** A workspace that has not been deleted, by id (for links that carry no slug, like invitations). */
  findLive(id: string): Promise<Workspace | null> {
    return this.dataSource.getRepository(Workspace).findOneBy({ id, deleted_at: IsNull() });
  }

  async findAccess(userSub: string, slug: string): Promise<WorkspaceAccess | null> {
    const workspace = await this.dataSource.getRepository(Workspace).findOneBy({ slug, deleted_at: IsNull() });
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
      .andWhere('w.deleted_at IS NULL')
      .getMany();
    const byId = new Map(workspaces.map((w) => [w.id, w]));
    return memberships
      .filter((membership) => byId.has(membership.workspace_id))
      .map((membership) => ({ workspace: byId.get(membership.workspace_id) as Workspace, membership }));
  }

  /**
   * Locks the workspace row: membership changes queue on it so the last-owner check cannot race.
   * NO KEY UPDATE, so rows inserted elsewhere that reference the workspace (intents, audit events:
   * their foreign keys take KEY SHARE) are not held up meanwhile.
   */
  async lock(em: EntityManager, workspaceId: string): Promise<void> {
    await em.query(`SELECT id FROM workspaces WHERE id = $1 FOR NO KEY UPDATE`, [workspaceId]);
  }

  /**
   * Marks the workspace deleted, revokes its agents' keys and its open invitations, all in the
   * caller's transaction. False when it was deleted already.
   */
  async softDelete(em: EntityManager, workspaceId: string): Promise<boolean> {
    const [rows] = (await em.query(
      `UPDATE workspaces SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
      [workspaceId],
    )) as [unknown[], number];
    if (rows.length !== 1) return false;
    await em.query(`UPDATE agents SET status = 'revoked', updated_at = now() WHERE workspace_id = $1 AND status <> 'revoked'`, [workspaceId]);
    this.agentKeys.forgetWorkspace(workspaceId);
    await em.query(
      `UPDATE workspace_invitations SET status = 'revoked', updated_at = now() WHERE workspace_id = $1 AND status = 'open'`,
      [workspaceId],
    );
    return true;
  }
}
