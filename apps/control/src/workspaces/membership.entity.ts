import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WorkspaceRole } from './workspace-roles';

@Entity('workspace_memberships')
export class WorkspaceMembership {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  user_sub: string;

  @Column('text', { nullable: true })
  email: string | null;

  @Column('text')
  role: WorkspaceRole;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
