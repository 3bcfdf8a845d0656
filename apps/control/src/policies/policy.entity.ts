import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';
import type { PolicyRule } from './policy-rules';

export type PolicyStatus = 'active' | 'disabled';
export type PolicyMode = 'blocklist' | 'allowlist';

@Entity('policies')
export class Policy {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('uuid')
  agent_id: string;

  @Column('text')
  status: PolicyStatus;

  @Column('text')
  mode: PolicyMode;

  @Column('bigint', { nullable: true, transformer: centsTransformer })
  per_transaction_cap_cents: number | null;

  @Column('bigint', { nullable: true, transformer: centsTransformer })
  velocity_cap_cents: number | null;

  @Column('integer', { nullable: true })
  velocity_window_seconds: number | null;

  @Column('bigint', { nullable: true, transformer: centsTransformer })
  monthly_cap_cents: number | null;

  @Column('bigint', { nullable: true, transformer: centsTransformer })
  approval_threshold_cents: number | null;

  @Column('text', { array: true })
  counterparty_allowlist: string[];

  @Column('text', { array: true })
  imports: string[];

  @Column('jsonb')
  rules: PolicyRule[];

  /** Bumped on every write, so a reader can tell edits apart; the content digest is policy_version. */
  @Column('integer')
  version: number;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
