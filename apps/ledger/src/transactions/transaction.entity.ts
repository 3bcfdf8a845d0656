import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TransactionKind = 'standard' | 'reversal' | 'refund';

/** A balanced set of postings. Never deleted; corrected by reversal and refund transactions. */
@Entity('transactions')
export class TransactionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'ledger_id' })
  ledgerId: string;

  @Column('text', { name: 'idempotency_key', nullable: true })
  idempotencyKey: string | null;

  @Column('text')
  kind: TransactionKind;

  /** The original of a reversal or refund. */
  @Column('uuid', { nullable: true })
  reverses: string | null;

  @Column('numeric', { name: 'refund_amount', nullable: true })
  refundAmount: string | null;

  @Column('text', { name: 'refund_currency', nullable: true })
  refundCurrency: string | null;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  @Column('timestamptz', { name: 'value_date' })
  valueDate: Date;

  @Column('timestamptz', { name: 'booking_date' })
  bookingDate: Date;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
