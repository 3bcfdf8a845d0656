import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';

export const SPEND_TOKEN_STATUSES = ['issued', 'consumed', 'expired', 'void'] as const;
export type SpendTokenStatus = (typeof SPEND_TOKEN_STATUSES)[number];

@Entity('spend_tokens')
export class SpendToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('uuid')
  agent_id: string;

  @Column('uuid')
  budget_id: string;

  @Column('bigint', { transformer: centsTransformer })
  amount_ceiling_cents: number;

  @Column('text', { nullable: true })
  counterparty: string | null;

  @Column('timestamptz', { nullable: true })
  expires_at: Date | null;

  @Column('text')
  status: SpendTokenStatus;

  @Column('timestamptz', { nullable: true })
  consumed_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
