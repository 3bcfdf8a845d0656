import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An inbound provider event already applied; its id makes redelivery a no-op. */
@Entity('billing_events')
export class BillingEvent {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  type: string;

  @Column('uuid', { nullable: true })
  workspace_id: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  received_at: Date;
}
