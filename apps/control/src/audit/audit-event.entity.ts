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

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}
