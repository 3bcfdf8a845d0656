-- A workspace's decisions in [from_at, to_at) as rows to add up: whole days from the day rollups,
-- the whole hours around them from the hour rollups, the partial hours at the edges from intents
-- (the bounds come from spending-segments.ts: from_at <= hour_from <= day_from <= day_to <= hour_to <= to_at).
CREATE OR REPLACE FUNCTION decisions_between(
  ws uuid, from_at timestamptz, to_at timestamptz, hour_from timestamptz, hour_to timestamptz, day_from timestamptz, day_to timestamptz
) RETURNS TABLE (at timestamptz, agent_id uuid, rule text, outcome text, currency text, decisions bigint, amount_cents bigint)
LANGUAGE sql STABLE AS $$
  SELECT r.bucket, r.agent_id, nullif(r.rule, ''), r.outcome, r.currency, r.decisions, r.amount_cents
    FROM decision_rollups r
   WHERE r.workspace_id = ws AND r.span = 'day' AND r.bucket >= day_from AND r.bucket < day_to
  UNION ALL
  SELECT r.bucket, r.agent_id, nullif(r.rule, ''), r.outcome, r.currency, r.decisions, r.amount_cents
    FROM decision_rollups r
   WHERE r.workspace_id = ws AND r.span = 'hour' AND ((r.bucket >= hour_from AND r.bucket < day_from) OR (r.bucket >= day_to AND r.bucket < hour_to))
  UNION ALL
  SELECT i.created_at, i.agent_id, i.decision->>'rule', i.decision->>'outcome', i.currency, 1, i.amount_cents
    FROM intents i
   WHERE i.workspace_id = ws AND i.created_at >= from_at AND i.created_at < hour_from
  UNION ALL
  SELECT i.created_at, i.agent_id, i.decision->>'rule', i.decision->>'outcome', i.currency, 1, i.amount_cents
    FROM intents i
   WHERE i.workspace_id = ws AND i.created_at >= hour_to AND i.created_at < to_at
$$;
