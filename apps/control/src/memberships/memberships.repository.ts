import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { WorkspaceMembership } from '../workspaces/membership.entity';
import { WorkspaceRole } from '../workspaces/workspace-roles';

@Injectable()
export class MembershipsRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(workspaceId: string, page: ListQueryDto): Promise<Page<WorkspaceMembership>> {
    const qb = this.dataSource
      .getRepository(WorkspaceMembership)
      .createQueryBuilder('m')
      .where('m.workspace_id = :workspaceId', { workspaceId });
    return paginate(qb, 'workspace_memberships', workspaceId, page, 'ASC');
  }

  find(em: EntityManager, workspaceId: string, id: string): Promise<WorkspaceMembership | null> {
    return em.findOneBy(WorkspaceMembership, { workspace_id: workspaceId, id });
  }

  findBySub(em: EntityManager, workspaceId: string, userSub: string): Promise<WorkspaceMembership | null> {
    return em.findOneBy(WorkspaceMembership, { workspace_id: workspaceId, user_sub: userSub });
  }

  /** True when `email` already belongs to a member (compared without case). */
  async hasEmail(em: EntityManager, workspaceId: string, email: string): Promise<boolean> {
    const rows: unknown[] = await em.query(`SELECT 1 FROM workspace_memberships WHERE workspace_id = $1 AND lower(email) = lower($2)`, [
      workspaceId,
      email,
    ]);
    return rows.length > 0;
  }

  async countOwners(em: EntityManager, workspaceId: string): Promise<number> {
    return em.countBy(WorkspaceMembership, { workspace_id: workspaceId, role: 'owner' });
  }

  async setRole(em: EntityManager, workspaceId: string, id: string, role: WorkspaceRole): Promise<WorkspaceMembership> {
    await em.update(WorkspaceMembership, { workspace_id: workspaceId, id }, { role });
    return (await this.find(em, workspaceId, id)) as WorkspaceMembership;
  }

  async remove(em: EntityManager, workspaceId: string, id: string): Promise<void> {
    await em.delete(WorkspaceMembership, { workspace_id: workspaceId, id });
  }
}
