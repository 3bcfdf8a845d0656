import type { AuditActor } from './audit-subjects';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('audit_events')
export class AuditEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  subject_type: string;

  @Column('uuid')
  subject_id: string;

  @Column('text')
  action: string;

  @Column('text', { nullable: true })
  trace_id: string | null;

  @Column('jsonb')
  snapshot: object;

  @Column('text', { nullable: true })
  actor_type: AuditActor['type'] | null;

  @Column('text', { nullable: true })
  actor_id: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}
