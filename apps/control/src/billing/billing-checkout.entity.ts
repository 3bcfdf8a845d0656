import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';
import type { PlanId } from './billing-plans';

export type CheckoutKind = 'subscription' | 'pack';

/** A hosted checkout this service started; its completion webhook finds the workspace here. */
@Entity('billing_checkouts')
export class BillingCheckout {
  /** The provider's checkout session id. */
  @PrimaryColumn('text')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('text')
  kind: CheckoutKind;

  @Column('text', { nullable: true })
  plan: PlanId | null;

  @Column('integer', { nullable: true })
  units: number | null;

  /** Gated volume a pack adds once paid; 0 for a subscription. */
  @Column('bigint', { transformer: centsTransformer })
  volume_cents: number;

  @Column('text')
  status: 'open' | 'completed';

  @Column('text')
  started_by_sub: string;

  @Column('timestamptz', { nullable: true })
  completed_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}
