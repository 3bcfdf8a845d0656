import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountKind, AccountType, FundClassification } from '../accounts/account-kinds';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from '../books/balance-figures';
import { LedgerScope } from '../common/mode';

export interface ReportAccount {
  id: string;
  name: string;
  type: AccountType;
  currency: string;
  kind: AccountKind;
  template: string | null;
  counterpartyRef: string | null;
  fundClassification: FundClassification;
  custodyProvider: string | null;
  custodyExternalId: string | null;
  totals: BalanceTotals;
}

/** Window on value_date: `from` inclusive (null = the beginning), `to` inclusive or exclusive. */
export interface Window {
  from: Date | null;
  to: Date;
  toExclusive: boolean;
}

/** One transaction's posted movement in one currency on accounts of one type. */
export interface FlowLeg {
  transactionId: string;
  currency: string;
  type: AccountType;
  debits: bigint;
  credits: bigint;
}

const IN_WINDOW = `p.voided_at IS NULL AND ($2::timestamptz IS NULL OR p.value_date >= $2)
  AND (p.value_date < $3 OR (NOT $4 AND p.value_date = $3))`;

@Injectable()
export class ReportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every account with the sums of its postings in the window, by id. */
  async accounts(scope: LedgerScope, window: Window, manager?: EntityManager): Promise<ReportAccount[]> {
    const rows: (Omit<ReportAccount, 'totals'> & BalanceTotalsRow)[] = await (manager ?? this.dataSource).query(
      `SELECT a.id, a.name, a.type, a.currency, a.account_kind AS kind, a.template, a.counterparty_ref AS "counterpartyRef",
         a.fund_classification AS "fundClassification", a.custody_provider AS "custodyProvider",
         a.custody_external_id AS "custodyExternalId",
         COALESCE(sum(p.amount) FILTER (WHERE NOT p.pending AND p.direction = 'debit'), 0)::text AS "postedDebits",
         COALESCE(sum(p.amount) FILTER (WHERE NOT p.pending AND p.direction = 'credit'), 0)::text AS "postedCredits",
         COALESCE(sum(p.amount) FILTER (WHERE p.pending AND p.direction = 'debit'), 0)::text AS "pendingDebits",
         COALESCE(sum(p.amount) FILTER (WHERE p.pending AND p.direction = 'credit'), 0)::text AS "pendingCredits"
       FROM accounts a LEFT JOIN postings p ON p.ledger_id = a.ledger_id AND p.account_id = a.id AND ${IN_WINDOW}
       WHERE a.ledger_id = $1
       GROUP BY a.ledger_id, a.id
       ORDER BY a.id`,
      [scope.ledgerId, window.from, window.to, window.toExclusive],
    );
    return rows.map(({ postedDebits, postedCredits, pendingDebits, pendingCredits, ...account }) => ({
      ...account,
      totals: totalsOf({ postedDebits, postedCredits, pendingDebits, pendingCredits }),
    }));
  }

  /** Posted movement per transaction, currency and account type in the window (for cash flow). */
  async flows(scope: LedgerScope, window: Window): Promise<FlowLeg[]> {
    const rows: { transactionId: string; currency: string; type: AccountType; debits: string; credits: string }[] =
      await this.dataSource.query(
        `SELECT p.transaction_id AS "transactionId", p.currency, a.type,
           COALESCE(sum(p.amount) FILTER (WHERE p.direction = 'debit'), 0)::text AS debits,
           COALESCE(sum(p.amount) FILTER (WHERE p.direction = 'credit'), 0)::text AS credits
         FROM postings p JOIN accounts a ON a.ledger_id = p.ledger_id AND a.id = p.account_id
         WHERE p.ledger_id = $1 AND NOT p.pending AND ${IN_WINDOW}
         GROUP BY p.transaction_id, p.currency, a.type`,
        [scope.ledgerId, window.from, window.to, window.toExclusive],
      );
    return rows.map((r) => ({ ...r, debits: BigInt(r.debits), credits: BigInt(r.credits) }));
  }
}
