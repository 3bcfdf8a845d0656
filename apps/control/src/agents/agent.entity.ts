import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';
import type { AgentMode } from './agent-key';

export const AGENT_STATUSES = ['active', 'suspended', 'revoked'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

@Entity('agents')
export class Agent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  name: string;

  @Column('text')
  status: AgentStatus;

  @Column('text')
  mode: AgentMode;

  @Column('text', { array: true })
  scopes: string[];

  @Column('text', { select: false })
  key_lookup: string;

  @Column('text', { select: false })
  key_digest: string;

  @Column('text')
  api_key_prefix: string;

  @Column('bigint', { nullable: true, transformer: centsTransformer })
  max_budget_cents: number | null;

  @Column('timestamptz', { nullable: true })
  last_used_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
