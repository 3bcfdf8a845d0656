import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WorkspaceRole } from '../workspaces/workspace-roles';

export type InvitationStatus = 'open' | 'accepted' | 'revoked';

@Entity('workspace_invitations')
export class WorkspaceInvitation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  email: string;

  @Column('text')
  role: WorkspaceRole;

  /** SHA-256 of the one-time token; the token itself is only ever in the create response. */
  @Column('text', { select: false })
  token_digest: string;

  @Column('text')
  status: InvitationStatus;

  @Column('text')
  invited_by_sub: string;

  @Column('text', { nullable: true })
  accepted_by_sub: string | null;

  @Column('timestamptz')
  expires_at: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
