CREATE OR REPLACE FUNCTION postings_refuse_closed_period() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refused timestamptz;
BEGIN
  SELECT n.value_date INTO refused FROM new_postings n
  JOIN period_closes c ON c.ledger_id = n.ledger_id AND c.reopened_at IS NULL
    AND n.value_date >= c.period_start AND n.value_date < c.period_end
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'value_date % is inside a closed period', refused USING ERRCODE = 'BK001';
  END IF;
  RETURN NULL;
END $$;
