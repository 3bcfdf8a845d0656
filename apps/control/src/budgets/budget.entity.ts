import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';

export type BudgetStatus = 'active' | 'exhausted' | 'closed';

@Entity('budgets')
export class Budget {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('uuid')
  agent_id: string;

  @Column('uuid', { nullable: true })
  parent_budget_id: string | null;

  @Column('bigint', { transformer: centsTransformer })
  budget_cents: number;

  @Column('bigint', { transformer: centsTransformer })
  spent_cents: number;

  /** Headroom held back from spending here: lent to open child budgets or reserved by open intents. */
  @Column('bigint', { transformer: centsTransformer })
  reserved_cents: number;

  @Column('text')
  currency: string;

  @Column('text')
  status: BudgetStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
