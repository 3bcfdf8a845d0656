-- bench_bare_transfer: the least a two-posting transfer can write on the ledger's own tables, for
-- `pnpm bench:ledger` to set beside ledger_write_batch. One transaction row, its two postings, the two
-- balance rows moved; no checks, no idempotency key, no event, no JSON. The balance rows are updated in
-- account order, so two transfers between the same accounts in opposite directions never deadlock.
-- Created on the bench's scratch database only; it is no part of the service.
CREATE OR REPLACE FUNCTION bench_bare_transfer(ledger uuid, debit_account text, credit_account text, amount numeric, currency text)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  tx uuid := gen_random_uuid();
  at timestamptz := clock_timestamp();
BEGIN
  IF debit_account < credit_account THEN
    UPDATE account_balances b SET posted_debits = b.posted_debits + amount
    WHERE b.ledger_id = ledger AND b.account_id = debit_account AND b.currency = bench_bare_transfer.currency;
    UPDATE account_balances b SET posted_credits = b.posted_credits + amount
    WHERE b.ledger_id = ledger AND b.account_id = credit_account AND b.currency = bench_bare_transfer.currency;
  ELSE
    UPDATE account_balances b SET posted_credits = b.posted_credits + amount
    WHERE b.ledger_id = ledger AND b.account_id = credit_account AND b.currency = bench_bare_transfer.currency;
    UPDATE account_balances b SET posted_debits = b.posted_debits + amount
    WHERE b.ledger_id = ledger AND b.account_id = debit_account AND b.currency = bench_bare_transfer.currency;
  END IF;
  INSERT INTO transactions (id, ledger_id, kind, value_date, booking_date, created_at, updated_at)
  VALUES (tx, ledger, 'standard', at, at, at, at);
  INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, value_date, created_at)
  VALUES (ledger, tx, debit_account, amount, currency, 'debit', at, at),
    (ledger, tx, credit_account, amount, currency, 'credit', at, at);
END
$fn$;
