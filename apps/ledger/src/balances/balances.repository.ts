import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountType } from '../accounts/account-kinds';
import { LedgerScope } from '../common/mode';
import { PostingEntity } from '../postings/posting.entity';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from '../books/balance-figures';

/** An account's identity as balance reads need it. */
export interface BalanceSubject {
  id: string;
  type: AccountType;
  currency: string;
}

export type SubjectTotals = BalanceSubject & { totals: BalanceTotals };

const TOTAL_COLUMNS = `b.posted_debits::text AS "postedDebits", b.posted_credits::text AS "postedCredits",
  b.pending_debits::text AS "pendingDebits", b.pending_credits::text AS "pendingCredits"`;

/** Sums of postings up to an instant, by value_date; voided legs count nowhere. */
const TOTALS_FROM_POSTINGS = `
  COALESCE(sum(p.amount) FILTER (WHERE NOT p.pending AND p.direction = 'debit'), 0)::text AS "postedDebits",
  COALESCE(sum(p.amount) FILTER (WHERE NOT p.pending AND p.direction = 'credit'), 0)::text AS "postedCredits",
  COALESCE(sum(p.amount) FILTER (WHERE p.pending AND p.direction = 'debit'), 0)::text AS "pendingDebits",
  COALESCE(sum(p.amount) FILTER (WHERE p.pending AND p.direction = 'credit'), 0)::text AS "pendingCredits"`;

type TotalsRow = BalanceSubject & BalanceTotalsRow;

function withTotals(row: TotalsRow): SubjectTotals {
  return { id: row.id, type: row.type, currency: row.currency, totals: totalsOf(row) };
}

@Injectable()
export class BalancesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The zero balance row every account gets when it is created. */
  async open(manager: EntityManager, scope: LedgerScope, accountId: string, currency: string): Promise<void> {
    await manager.query(`INSERT INTO account_balances (ledger_id, account_id, currency) VALUES ($1, $2, $3)`, [
      scope.ledgerId,
      accountId,
      currency,
    ]);
  }

  /** Current totals; pass `manager` inside a transaction that already locked the account. */
  async current(scope: LedgerScope, accountId: string, manager?: EntityManager): Promise<SubjectTotals | null> {
    const rows: TotalsRow[] = await (manager ?? this.dataSource).query(
      `SELECT a.id, a.type, a.currency, ${TOTAL_COLUMNS}
       FROM accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id
       WHERE a.ledger_id = $1 AND a.id = $2`,
      [scope.ledgerId, accountId],
    );
    return rows[0] ? withTotals(rows[0]) : null;
  }

  /** Totals of postings whose value_date is at or before `at` (or strictly before, with `exclusive`). */
  async asOf(scope: LedgerScope, account: BalanceSubject, at: Date, exclusive = false): Promise<BalanceTotals> {
    const rows: BalanceTotalsRow[] = await this.dataSource.query(
      `SELECT ${TOTALS_FROM_POSTINGS} FROM postings p
       WHERE p.ledger_id = $1 AND p.account_id = $2 AND p.voided_at IS NULL
         AND (p.value_date < $3 OR (NOT $4 AND p.value_date = $3))`,
      [scope.ledgerId, account.id, at, exclusive],
    );
    return totalsOf(rows[0]);
  }

  /** The account and every descendant through parent_id, at any depth, with current totals. */
  async tree(scope: LedgerScope, rootId: string): Promise<SubjectTotals[]> {
    const rows: TotalsRow[] = await this.dataSource.query(
      `WITH RECURSIVE tree AS (
         SELECT id FROM accounts WHERE ledger_id = $1 AND id = $2
         UNION
         SELECT c.id FROM accounts c JOIN tree t ON c.parent_id = t.id WHERE c.ledger_id = $1
       )
       SELECT a.id, a.type, a.currency, ${TOTAL_COLUMNS}
       FROM tree JOIN accounts a ON a.ledger_id = $1 AND a.id = tree.id
       JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id
       ORDER BY a.id`,
      [scope.ledgerId, rootId],
    );
    return rows.map(withTotals);
  }

  /** Postings of the account with value_date in [from, to), oldest first; voided legs excluded. */
  statementEntries(scope: LedgerScope, accountId: string, from: Date | null, to: Date, limit: number): Promise<PostingEntity[]> {
    const qb = this.dataSource
      .getRepository(PostingEntity)
      .createQueryBuilder('p')
      .where('p.ledger_id = :ledgerId AND p.account_id = :accountId AND p.voided_at IS NULL AND p.value_date < :to', {
        ledgerId: scope.ledgerId,
        accountId,
        to,
      });
    if (from) qb.andWhere('p.value_date >= :from', { from });
    return qb.orderBy('p.value_date', 'ASC').addOrderBy('p.id', 'ASC').limit(limit).getMany();
  }
}
