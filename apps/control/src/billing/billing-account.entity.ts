import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PlanId } from './billing-plans';

/**
 * A workspace's plan and its subscription at the billing provider (the audit log's `Subscription`).
 * Created on the first billing write; a workspace without one is on the free sandbox plan.
 */
@Entity('billing_accounts')
export class BillingAccount {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  plan: PlanId;

  /** The provider's customer; set once the workspace has been billed (the portal needs it). */
  @Column('text', { nullable: true })
  customer_id: string | null;

  @Column('text', { nullable: true })
  subscription_id: string | null;

  /** The provider's subscription status (`active`, `trialing`, `past_due`, `canceled`, ...). */
  @Column('text', { nullable: true })
  subscription_status: string | null;

  @Column('boolean')
  cancel_at_period_end: boolean;

  @Column('timestamptz', { nullable: true })
  current_period_start: Date | null;

  @Column('timestamptz', { nullable: true })
  current_period_end: Date | null;

  /** Provider time of the newest subscription state applied; older webhook events are ignored. */
  @Column('timestamptz', { nullable: true })
  synced_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
