-- A posting's economic columns never change; only pending -> committed, void and reconciliation.
CREATE OR REPLACE FUNCTION postings_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.ledger_id, NEW.transaction_id, NEW.account_id, NEW.amount, NEW.currency, NEW.direction, NEW.value_date, NEW.tags, NEW.created_at)
     IS DISTINCT FROM (OLD.ledger_id, OLD.transaction_id, OLD.account_id, OLD.amount, OLD.currency, OLD.direction, OLD.value_date, OLD.tags, OLD.created_at)
     OR (NEW.pending AND NOT OLD.pending)
     OR (OLD.voided_at IS NOT NULL AND NEW.voided_at IS DISTINCT FROM OLD.voided_at) THEN
    RAISE EXCEPTION 'posting % is immutable', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
