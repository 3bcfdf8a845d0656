-- Statement-level AFTER INSERT trigger on intents: adds the new decisions to their hour and day rows.
-- Keys are upserted in sorted order, so concurrent inserts lock shared rows in the same order.
CREATE OR REPLACE FUNCTION decision_rollups_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO decision_rollups AS r (workspace_id, span, bucket, agent_id, outcome, rule, currency, decisions, amount_cents)
  SELECT n.workspace_id, s.span, date_trunc(s.span, n.created_at, 'UTC'), n.agent_id, n.decision->>'outcome',
         coalesce(n.decision->>'rule', ''), n.currency, count(*), sum(n.amount_cents)
    FROM inserted n CROSS JOIN (VALUES ('hour'), ('day')) AS s (span)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (workspace_id, span, bucket, agent_id, outcome, rule, currency)
  DO UPDATE SET decisions = r.decisions + EXCLUDED.decisions, amount_cents = r.amount_cents + EXCLUDED.amount_cents;
  RETURN NULL;
END $$;
