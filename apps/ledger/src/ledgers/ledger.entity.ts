import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Mode } from '../common/mode';

@Entity('ledgers')
export class LedgerEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('text')
  name: string;

  @Column('text')
  mode: Mode;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  @Column('timestamptz', { name: 'archived_at', nullable: true })
  archivedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
