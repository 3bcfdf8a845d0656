import { DataSource } from 'typeorm';

/**
 * Checks the books straight from the database: every currency nets to zero (posted and pending
 * apart), every balance row equals the sum of its account's postings, and no overdraft_policy
 * none account has an available balance below minus its limit. Returns what is wrong.
 */
export async function booksProblems(db: DataSource, ledgerId: string): Promise<string[]> {
  const problems: string[] = [];
  const unbalanced: { currency: string; pending: boolean; net: string }[] = await db.query(
    `SELECT currency, pending, sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END)::text AS net
     FROM postings WHERE ledger_id = $1 AND voided_at IS NULL GROUP BY currency, pending
     HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
    [ledgerId],
  );
  for (const u of unbalanced) problems.push(`${u.currency} ${u.pending ? 'pending' : 'posted'} nets to ${u.net}`);
  const drift: { account_id: string }[] = await db.query(
    `SELECT b.account_id FROM account_balances b
     LEFT JOIN (
       SELECT account_id,
         COALESCE(sum(amount) FILTER (WHERE NOT pending AND direction = 'debit'), 0) AS pd,
         COALESCE(sum(amount) FILTER (WHERE NOT pending AND direction = 'credit'), 0) AS pc,
         COALESCE(sum(amount) FILTER (WHERE pending AND direction = 'debit'), 0) AS qd,
         COALESCE(sum(amount) FILTER (WHERE pending AND direction = 'credit'), 0) AS qc
       FROM postings WHERE ledger_id = $1 AND voided_at IS NULL GROUP BY account_id
     ) s ON s.account_id = b.account_id
     WHERE b.ledger_id = $1 AND (b.posted_debits, b.posted_credits, b.pending_debits, b.pending_credits)
       IS DISTINCT FROM (COALESCE(s.pd, 0), COALESCE(s.pc, 0), COALESCE(s.qd, 0), COALESCE(s.qc, 0))`,
    [ledgerId],
  );
  for (const d of drift) problems.push(`balance row of ${d.account_id} differs from its postings`);
  const overdrawn: { id: string; available: string }[] = await db.query(
    `SELECT a.id, (CASE WHEN a.type IN ('asset', 'expense')
         THEN b.posted_debits - b.posted_credits - b.pending_credits
         ELSE b.posted_credits - b.posted_debits - b.pending_debits END)::text AS available
     FROM accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id
     WHERE a.ledger_id = $1 AND a.overdraft_policy = 'none'
       AND (CASE WHEN a.type IN ('asset', 'expense')
         THEN b.posted_debits - b.posted_credits - b.pending_credits
         ELSE b.posted_credits - b.posted_debits - b.pending_debits END) < -a.overdraft_limit`,
    [ledgerId],
  );
  for (const o of overdrawn) problems.push(`${o.id} is overdrawn: available ${o.available}`);
  return problems;
}
