import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A closed window of value dates, with the trial balance frozen at its end. */
@Entity('period_closes')
export class PeriodCloseEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'ledger_id' })
  ledgerId: string;

  @Column('timestamptz', { name: 'period_start' })
  periodStart: Date;

  @Column('timestamptz', { name: 'period_end' })
  periodEnd: Date;

  @Column('text', { name: 'closed_by_label' })
  closedByLabel: string;

  @Column('text', { nullable: true })
  note: string | null;

  @Column('boolean')
  forced: boolean;

  @Column('text', { name: 'forced_by_label', nullable: true })
  forcedByLabel: string | null;

  @Column('timestamptz', { name: 'forced_at', nullable: true })
  forcedAt: Date | null;

  @Column('jsonb', { name: 'trial_balance' })
  trialBalance: Record<string, unknown>;

  @Column('timestamptz', { name: 'reopened_at', nullable: true })
  reopenedAt: Date | null;

  @Column('text', { name: 'reopened_by_label', nullable: true })
  reopenedByLabel: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
