import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AccountKind, AccountStatus, AccountType, FundClassification, OverdraftPolicy } from './account-kinds';

@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn('uuid', { name: 'ledger_id' })
  ledgerId: string;

  /** Caller-chosen, immutable. */
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  type: AccountType;

  @Column('text')
  currency: string;

  @Column('text', { name: 'overdraft_policy' })
  overdraftPolicy: OverdraftPolicy;

  /** Integer minor units, as a decimal string. */
  @Column('numeric', { name: 'overdraft_limit' })
  overdraftLimit: string;

  @Column('text', { name: 'account_kind' })
  accountKind: AccountKind;

  @Column('text', { name: 'counterparty_ref', nullable: true })
  counterpartyRef: string | null;

  @Column('text', { name: 'fund_classification' })
  fundClassification: FundClassification;

  @Column('text', { name: 'custody_provider', nullable: true })
  custodyProvider: string | null;

  @Column('text', { name: 'custody_external_id', nullable: true })
  custodyExternalId: string | null;

  @Column('text', { nullable: true })
  template: string | null;

  @Column('text', { name: 'parent_id', nullable: true })
  parentId: string | null;

  @Column('text', { name: 'ledgerable_type', nullable: true })
  ledgerableType: string | null;

  @Column('text', { name: 'ledgerable_id', nullable: true })
  ledgerableId: string | null;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  @Column('integer', { name: 'lock_version' })
  lockVersion: number;

  @Column('text')
  status: AccountStatus;

  @Column('timestamptz', { name: 'closed_at', nullable: true })
  closedAt: Date | null;

  @Column('text', { name: 'closed_by_label', nullable: true })
  closedByLabel: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
