CREATE OR REPLACE FUNCTION books_available(type text, posted_debits numeric, posted_credits numeric,
    pending_debits numeric, pending_credits numeric) RETURNS numeric
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN type IN ('asset', 'expense')
      THEN posted_debits - posted_credits - pending_credits
      ELSE posted_credits - posted_debits - pending_debits END
$$;
