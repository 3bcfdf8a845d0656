-- Adds the decisions of [folded_to, to) to the hour and day rollups and moves folded_to to `to`, in
-- the caller's transaction; returns the new folded_to. The state row's lock makes concurrent folds
-- (one per replica) take turns, each starting where the previous one stopped.
--
-- `to` is the start of the current UTC hour, held back to the hour in which the oldest transaction
-- that may still commit an intent began. An intent's created_at is clock_timestamp() at its insert,
-- so it is never before its transaction's start. A transaction that may still insert is either
-- running a statement (its state and start are shown before the statement runs) or holds a
-- transaction id (it wrote already); one idle without an id can only insert later, past `to`. A prepared transaction's start is unknown: it holds folding back.
-- The intents are read by a later statement (a new snapshot, READ COMMITTED), so every intent before
-- `to` has committed by then; a snapshot taken before the check (REPEATABLE READ) could miss some.
CREATE OR REPLACE FUNCTION fold_decision_rollups() RETURNS timestamptz LANGUAGE plpgsql AS $$
DECLARE
  from_at timestamptz;
  to_at timestamptz;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'fold_decision_rollups() needs a READ COMMITTED transaction';
  END IF;
  IF NOT current_setting('track_activities')::boolean THEN
    RAISE EXCEPTION 'fold_decision_rollups() reads pg_stat_activity: track_activities must be on';
  END IF;
  SELECT f.folded_to INTO STRICT from_at FROM decision_rollups_folded f FOR UPDATE;
  -- pg_stat_activity is read once per transaction and kept: drop a copy the caller may have read before.
  PERFORM pg_stat_clear_snapshot();
  SELECT least(date_trunc('hour', clock_timestamp(), 'UTC'), min(date_trunc('hour', a.xact_start, 'UTC')))
    INTO to_at
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
     AND (a.backend_xid IS NOT NULL OR a.state NOT LIKE 'idle in transaction%');
  IF EXISTS (SELECT 1 FROM pg_prepared_xacts p WHERE p.database = current_database()) THEN
    to_at := from_at;
  END IF;
  IF to_at <= from_at THEN
    RETURN from_at;
  END IF;
  -- Hour rows of a folded range are whole; a day row grows by the hours of each fold.
  INSERT INTO decision_rollups AS r (workspace_id, span, bucket, agent_id, outcome, rule, currency, decisions, amount_cents)
  SELECT w.id, s.span, date_trunc(s.span, i.created_at, 'UTC'), i.agent_id, i.decision->>'outcome',
         coalesce(i.decision->>'rule', ''), i.currency, count(*), sum(i.amount_cents)
    FROM workspaces w
   CROSS JOIN LATERAL (
         SELECT i.created_at, i.agent_id, i.decision, i.currency, i.amount_cents
           FROM intents i
          WHERE i.workspace_id = w.id AND i.created_at >= from_at AND i.created_at < to_at) i
   CROSS JOIN (VALUES ('hour'), ('day')) AS s (span)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (workspace_id, span, bucket, agent_id, outcome, rule, currency)
  DO UPDATE SET decisions = r.decisions + EXCLUDED.decisions, amount_cents = r.amount_cents + EXCLUDED.amount_cents;
  UPDATE decision_rollups_folded SET folded_to = to_at;
  RETURN to_at;
END $$;
