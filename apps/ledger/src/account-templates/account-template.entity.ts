import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { AccountType, FundClassification } from '../accounts/account-kinds';

/** A named, immutable preset for accounts; keyed by name within its ledger. */
@Entity('account_templates')
export class AccountTemplateEntity {
  @PrimaryColumn('uuid', { name: 'ledger_id' })
  ledgerId: string;

  @PrimaryColumn('text')
  name: string;

  @Column('text', { name: 'accounting_type' })
  accountingType: AccountType;

  /** Empty means any currency. */
  @Column('text', { name: 'allowed_currencies', array: true })
  allowedCurrencies: string[];

  @Column('boolean', { name: 'balance_non_negative' })
  balanceNonNegative: boolean;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { name: 'fund_classification', nullable: true })
  fundClassification: FundClassification | null;

  @Column('text', { name: 'custody_provider', nullable: true })
  custodyProvider: string | null;

  @Column('text', { name: 'custody_external_id', nullable: true })
  custodyExternalId: string | null;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
