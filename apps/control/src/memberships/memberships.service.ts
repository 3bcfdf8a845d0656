import { Injectable } from '@nestjs/common';
import { isUniqueViolation, retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { BillingService } from '../billing/billing.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import { WorkspaceMembership } from '../workspaces/membership.entity';
import { capabilitiesOf, WorkspaceRole } from '../workspaces/workspace-roles';
import { WorkspaceErrors } from '../workspaces/workspace.errors';
import { WorkspaceAccess, WorkspacesRepository } from '../workspaces/workspaces.repository';
import { CreateMembershipDto } from './dto/create-membership.dto';
import { MembershipsRepository } from './memberships.repository';

export function presentMembership(m: WorkspaceMembership) {
  return {
    id: m.id,
    user_sub: m.user_sub,
    email: m.email,
    role: m.role,
    capabilities: capabilitiesOf(m.role),
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

const LAST_OWNER = 'A workspace keeps at least one owner: make someone else owner first';

@Injectable()
export class MembershipsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly memberships: MembershipsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly audit: AuditService,
    private readonly billing: BillingService,
  ) {}

  async list(workspaceId: string, page: ListQueryDto) {
    return mapPage(await this.memberships.list(workspaceId, page), presentMembership);
  }

  /** Seats a person directly, if the plan has a member seat left. */
  async add(access: WorkspaceAccess, dto: CreateMembershipDto, traceId: string): Promise<WorkspaceMembership> {
    const alreadyMember = `${dto.user_sub} is already a member of this workspace`;
    try {
      return await retryingTransaction(this.dataSource, async (em) => {
        // Checked before the plan so a full workspace still says why this add is refused.
        if (await this.memberships.findBySub(em, access.workspace.id, dto.user_sub)) throw unprocessable(alreadyMember);
        await this.billing.assertEntitled(em, access.workspace.id, { kind: 'members' });
        const membership = await this.workspaces.insertMembership(em, access.workspace.id, {
          user_sub: dto.user_sub,
          email: dto.email ?? null,
          role: dto.role,
        });
        await this.record(em, access, membership, 'membership.created', traceId);
        return membership;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw unprocessable(alreadyMember);
      throw e;
    }
  }

  /** Changes a member's role; the last owner cannot be demoted. */
  changeRole(access: WorkspaceAccess, id: string, role: WorkspaceRole, traceId: string): Promise<WorkspaceMembership> {
    return retryingTransaction(this.dataSource, async (em) => {
      const current = await this.lockedMember(em, access, id);
      if (current.role === role) return current;
      await this.keepAnOwner(em, access, current);
      const membership = await this.memberships.setRole(em, access.workspace.id, id, role);
      await this.record(em, access, membership, 'membership.role_changed', traceId);
      return membership;
    });
  }

  /** Removes a member, or lets a person leave; the last owner can do neither. */
  remove(access: WorkspaceAccess, id: string, traceId: string): Promise<void> {
    return retryingTransaction(this.dataSource, async (em) => {
      const current = await this.lockedMember(em, access, id);
      const leaving = current.user_sub === access.membership.user_sub;
      if (!leaving && !capabilitiesOf(access.membership.role).includes('manage_members')) {
        throw WorkspaceErrors.error('insufficient_role', { message: 'This needs the manage_members capability' });
      }
      await this.keepAnOwner(em, access, current);
      await this.memberships.remove(em, access.workspace.id, id);
      await this.record(em, access, current, 'membership.removed', traceId);
    });
  }

  /** Serialises membership changes on the workspace row, then reads the target. */
  private async lockedMember(em: EntityManager, access: WorkspaceAccess, id: string): Promise<WorkspaceMembership> {
    await this.workspaces.lock(em, access.workspace.id);
    return (await this.memberships.find(em, access.workspace.id, id)) ?? Promise.reject(notFound('membership'));
  }

  private async keepAnOwner(em: EntityManager, access: WorkspaceAccess, leaving: WorkspaceMembership): Promise<void> {
    if (leaving.role === 'owner' && (await this.memberships.countOwners(em, access.workspace.id)) <= 1) {
      throw unprocessable(LAST_OWNER);
    }
  }

  private record(em: EntityManager, access: WorkspaceAccess, m: WorkspaceMembership, action: string, traceId: string) {
    return this.audit.record(em, 'WorkspaceMembership', m, presentMembership(m), action, traceId, access.membership.user_sub);
  }
}
