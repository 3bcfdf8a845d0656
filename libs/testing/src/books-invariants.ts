/** What runs SQL: a TypeORM DataSource (answers rows) or a pg client (answers a result holding them). */
export interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

type Row = Record<string, unknown>;

async function rowsOf(db: Queryable, sql: string, params: unknown[]): Promise<Row[]> {
  const result = await db.query(sql, params);
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}

/**
 * The ledger's books checked straight from its database, the one checker tests, benches, the
 * fuzzer and the fault campaign use: every currency nets to zero (posted and open pending legs
 * apart), every balance row equals the sum of its account's postings, and no `overdraft_policy:
 * none` account has an available balance below minus its limit. `ledgerId` null checks every ledger.
 * Returns what is wrong, one line each.
 */
export async function booksProblems(db: Queryable, ledgerId: string | null): Promise<string[]> {
  const problems: string[] = [];
  const params = [ledgerId];
  const rows = (sql: string) => rowsOf(db, sql, params);
  const unbalanced = await rows(
    `SELECT ledger_id, currency, pending, sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END)::text AS net
     FROM postings WHERE ($1::uuid IS NULL OR ledger_id = $1) AND voided_at IS NULL GROUP BY ledger_id, currency, pending
     HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
  );
  for (const u of unbalanced) problems.push(`ledger ${u.ledger_id}: ${u.currency} ${u.pending ? 'pending' : 'posted'} nets to ${u.net}`);
  const drift = await rows(
    `SELECT b.ledger_id, b.account_id FROM account_balances b
     LEFT JOIN (
       SELECT ledger_id, account_id,
         coalesce(sum(amount) FILTER (WHERE NOT pending AND direction = 'debit'), 0) AS pd,
         coalesce(sum(amount) FILTER (WHERE NOT pending AND direction = 'credit'), 0) AS pc,
         coalesce(sum(amount) FILTER (WHERE pending AND direction = 'debit'), 0) AS qd,
         coalesce(sum(amount) FILTER (WHERE pending AND direction = 'credit'), 0) AS qc
       FROM postings WHERE ($1::uuid IS NULL OR ledger_id = $1) AND voided_at IS NULL GROUP BY ledger_id, account_id
     ) s ON s.ledger_id = b.ledger_id AND s.account_id = b.account_id
     WHERE ($1::uuid IS NULL OR b.ledger_id = $1) AND (b.posted_debits, b.posted_credits, b.pending_debits, b.pending_credits)
       IS DISTINCT FROM (coalesce(s.pd, 0), coalesce(s.pc, 0), coalesce(s.qd, 0), coalesce(s.qc, 0))`,
  );
  for (const d of drift) problems.push(`ledger ${d.ledger_id}: balance row of ${d.account_id} differs from its postings`);
  const overdrawn = await rows(
    `SELECT a.ledger_id, a.id, books_available(a.type, b.posted_debits, b.posted_credits, b.pending_debits, b.pending_credits)::text AS available
     FROM accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id
     WHERE ($1::uuid IS NULL OR a.ledger_id = $1) AND a.overdraft_policy = 'none'
       AND books_available(a.type, b.posted_debits, b.posted_credits, b.pending_debits, b.pending_credits) < -a.overdraft_limit`,
  );
  for (const o of overdrawn) problems.push(`ledger ${o.ledger_id}: ${o.id} is overdrawn: available ${o.available}`);
  return problems;
}
