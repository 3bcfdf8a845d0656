import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Direction } from '../accounts/account-kinds';

/** One leg of a transaction. Economic columns never change (a trigger refuses it). */
@Entity('postings')
export class PostingEntity {
  /** int64, as Postgres prints it. */
  @PrimaryColumn('bigint')
  id: string;

  @Column('uuid', { name: 'ledger_id' })
  ledgerId: string;

  @Column('uuid', { name: 'transaction_id' })
  transactionId: string;

  @Column('text', { name: 'account_id' })
  accountId: string;

  @Column('numeric')
  amount: string;

  @Column('text')
  currency: string;

  @Column('text')
  direction: Direction;

  /** True while open; a commit clears it, a reversal voids it. */
  @Column('boolean')
  pending: boolean;

  @Column('timestamptz', { name: 'committed_at', nullable: true })
  committedAt: Date | null;

  @Column('timestamptz', { name: 'voided_at', nullable: true })
  voidedAt: Date | null;

  @Column('jsonb')
  tags: Record<string, string>;

  @Column('timestamptz', { name: 'value_date' })
  valueDate: Date;

  @Column('timestamptz', { name: 'reconciled_at', nullable: true })
  reconciledAt: Date | null;

  @Column('text', { name: 'reconciliation_reference', nullable: true })
  reconciliationReference: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
