import { Injectable } from '@nestjs/common';
import { isUniqueViolation, retryingTransaction } from '@bursar/service-kit';
import { randomToken, sha256Hex } from '@bursar/crypto';
import { DataSource, EntityManager } from 'typeorm';
import { personActor } from '../audit/audit-subjects';
import { AuditService } from '../audit/audit.service';
import { BillingService } from '../billing/billing.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import type { Identity } from '../identity/identity-token.verifier';
import { MembershipsRepository } from '../memberships/memberships.repository';
import { presentMembership } from '../memberships/memberships.service';
import { WorkspaceAccess, WorkspacesRepository } from '../workspaces/workspaces.repository';
import { CreateInvitationDto } from './dto/create-invitation.dto';
import { WorkspaceInvitation } from './invitation.entity';
import { InvitationsRepository } from './invitations.repository';

const LIFETIME_MS = 7 * 24 * 3600 * 1000;
const TOKEN_PREFIX = 'inv_';

export function invitationStatus(invitation: WorkspaceInvitation, now = new Date()): string {
  return invitation.status === 'open' && invitation.expires_at <= now ? 'expired' : invitation.status;
}

export function presentInvitation(invitation: WorkspaceInvitation) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: invitationStatus(invitation),
    expires_at: invitation.expires_at,
    created_at: invitation.created_at,
  };
}

@Injectable()
export class InvitationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly invitations: InvitationsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly audit: AuditService,
    private readonly billing: BillingService,
  ) {}

  /** Invites `email`, replacing any open invitation for it; the token exists only in this return value. */
  create(access: WorkspaceAccess, dto: CreateInvitationDto, traceId: string): Promise<{ invitation: WorkspaceInvitation; token: string }> {
    const workspaceId = access.workspace.id;
    const token = `${TOKEN_PREFIX}${randomToken(32)}`;
    return retryingTransaction(this.dataSource, async (em) => {
      // Invitations and memberships change one at a time per workspace, so parallel invitations for
      // one address replace each other instead of colliding on the one-open index.
      await this.workspaces.lock(em, workspaceId);
      if (await this.memberships.hasEmail(em, workspaceId, dto.email)) throw unprocessable(`${dto.email} is already a member`);
      const replaced = await this.invitations.revokeOpenFor(em, workspaceId, dto.email);
      if (replaced) await this.record(em, access.membership.user_sub, replaced, 'invitation.revoked', traceId);
      const invitation = await this.invitations.insert(em, workspaceId, {
        email: dto.email,
        role: dto.role,
        token_digest: sha256Hex(token),
        invited_by_sub: access.membership.user_sub,
        expires_at: new Date(Date.now() + LIFETIME_MS),
      });
      await this.record(em, access.membership.user_sub, invitation, 'invitation.created', traceId);
      return { invitation, token };
    });
  }

  async listOpen(workspaceId: string, page: ListQueryDto) {
    return mapPage(await this.invitations.listOpen(workspaceId, page), presentInvitation);
  }

  revoke(access: WorkspaceAccess, id: string, traceId: string): Promise<void> {
    return retryingTransaction(this.dataSource, async (em) => {
      const invitation = await this.invitations.find(access.workspace.id, id, em);
      if (!invitation) throw notFound('invitation');
      if (!(await this.invitations.close(em, access.workspace.id, id, 'revoked'))) {
        throw unprocessable(`The invitation is ${invitationStatus(invitation)}, not open`);
      }
      await this.record(em, access.membership.user_sub, { ...invitation, status: 'revoked' }, 'invitation.revoked', traceId);
    });
  }

  /** What an invitation link offers the signed-in person, before they accept it. */
  async lookup(identity: Identity, token: string) {
    const { invitation, workspace } = await this.open(token);
    const member = await this.memberships.findBySub(this.dataSource.manager, workspace.id, identity.sub);
    return {
      workspace_name: workspace.name,
      workspace_slug: workspace.slug,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expires_at,
      signed_in_as: identity.email ?? identity.sub,
      matches_account: identity.email !== null && identity.email.toLowerCase() === invitation.email.toLowerCase(),
      already_member: member !== null,
    };
  }

  /**
   * Seats the caller with the invitation's role; the token is spent by a conditional update, once.
   * A plan with no member seat left refuses it and the invitation stays open for after an upgrade.
   */
  async accept(identity: Identity, token: string, traceId: string): Promise<{ workspace_slug: string; role: string }> {
    const { invitation, workspace } = await this.open(token);
    const alreadyMember = 'You are already a member of this workspace';
    try {
      return await retryingTransaction(this.dataSource, async (em) => {
        if (!(await this.invitations.close(em, workspace.id, invitation.id, 'accepted', identity.sub))) {
          throw unprocessable('The invitation is no longer open');
        }
        // Checked before the plan so a full workspace still says why this accept is refused.
        if (await this.memberships.findBySub(em, workspace.id, identity.sub)) throw unprocessable(alreadyMember);
        await this.billing.assertEntitled(em, workspace.id, { kind: 'members' });
        const membership = await this.workspaces.insertMembership(em, workspace.id, {
          user_sub: identity.sub,
          email: identity.email ?? invitation.email,
          role: invitation.role,
        });
        const accepted = { ...invitation, status: 'accepted' as const, accepted_by_sub: identity.sub };
        await this.record(em, identity.sub, accepted, 'invitation.accepted', traceId);
        await this.audit.append(em, workspace.id, {
          subject_type: 'WorkspaceMembership',
          subject_id: membership.id,
          action: 'membership.created',
          trace_id: traceId,
          snapshot: presentMembership(membership),
          actor: personActor(identity.sub),
        });
        return { workspace_slug: workspace.slug, role: membership.role };
      });
    } catch (e) {
      if (isUniqueViolation(e, 'workspace_memberships_workspace_id_user_sub_key')) throw unprocessable(alreadyMember);
      throw e;
    }
  }

  /** The invitation a token names: 404 when unknown, 422 when no longer open. */
  private async open(token: string) {
    const invitation = token.startsWith(TOKEN_PREFIX) ? await this.invitations.findByDigest(sha256Hex(token)) : null;
    const workspace = invitation ? await this.workspaces.findLive(invitation.workspace_id) : null;
    if (!invitation || !workspace) throw notFound('invitation');
    const status = invitationStatus(invitation);
    if (status !== 'open') throw unprocessable(`The invitation is ${status}`);
    return { invitation, workspace };
  }

  private record(em: EntityManager, actorSub: string, invitation: WorkspaceInvitation, action: string, traceId: string) {
    return this.audit.record(em, 'WorkspaceInvitation', invitation, presentInvitation(invitation), action, traceId, actorSub);
  }
}
