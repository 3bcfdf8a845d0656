import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { WorkspaceInvitation } from './invitation.entity';

export type InvitationFields = Pick<WorkspaceInvitation, 'email' | 'role' | 'token_digest' | 'invited_by_sub' | 'expires_at'>;

/** Invitations of a workspace; only the token lookup is unscoped, since the token is what names the workspace. */
@Injectable()
export class InvitationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, workspaceId: string, fields: InvitationFields): Promise<WorkspaceInvitation> {
    const { id } = await em.save(em.create(WorkspaceInvitation, { workspace_id: workspaceId, status: 'open', ...fields }));
    return (await this.find(workspaceId, id, em)) as WorkspaceInvitation;
  }

  find(workspaceId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<WorkspaceInvitation | null> {
    return em.findOneBy(WorkspaceInvitation, { workspace_id: workspaceId, id });
  }

  /** Open, unexpired invitations, oldest first, a page at a time. */
  listOpen(workspaceId: string, page: ListQueryDto): Promise<Page<WorkspaceInvitation>> {
    const qb = this.dataSource
      .getRepository(WorkspaceInvitation)
      .createQueryBuilder('i')
      .where(`i.workspace_id = :workspaceId AND i.status = 'open' AND i.expires_at > now()`, { workspaceId });
    return paginate(qb, 'workspace_invitations', workspaceId, page, 'ASC');
  }

  /** Unscoped on purpose: an invitation link carries only its token, and the token names the workspace. */
  findByDigest(tokenDigest: string): Promise<WorkspaceInvitation | null> {
    return this.dataSource.getRepository(WorkspaceInvitation).findOneBy({ token_digest: tokenDigest });
  }

  /** Revokes the open invitation for `email`, if any, so a new one can take its place. */
  async revokeOpenFor(em: EntityManager, workspaceId: string, email: string): Promise<WorkspaceInvitation | null> {
    const [rows] = (await em.query(
      `UPDATE workspace_invitations SET status = 'revoked', updated_at = now()
        WHERE workspace_id = $1 AND lower(email) = lower($2) AND status = 'open' RETURNING id`,
      [workspaceId, email],
    )) as [{ id: string }[], number];
    return rows.length ? this.find(workspaceId, rows[0].id, em) : null;
  }

  /** Moves an open invitation to `to` in one conditional statement; false when it was not open (or expired). */
  async close(em: EntityManager, workspaceId: string, id: string, to: 'accepted' | 'revoked', acceptedBy?: string): Promise<boolean> {
    const [rows] = (await em.query(
      `UPDATE workspace_invitations SET status = $3, accepted_by_sub = $4, updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'open' AND ($3 = 'revoked' OR expires_at > now())
        RETURNING id`,
      [workspaceId, id, to, acceptedBy ?? null],
    )) as [unknown[], number];
    return rows.length === 1;
  }
}
