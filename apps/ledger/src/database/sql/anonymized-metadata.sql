-- Metadata emptied, except the ledger's own correction markers when they hold what the ledger
-- writes there (an id, a timestamp): they link money records, which anonymization keeps.
CREATE OR REPLACE FUNCTION anonymized_metadata(m jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(m) = 'object' THEN coalesce(
      (SELECT jsonb_object_agg(key, value) FROM jsonb_each(m)
       WHERE jsonb_typeof(value) = 'string'
         AND ((key = '_refund_of' AND value #>> '{}' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
           OR (key = '_reverses_value_date' AND value #>> '{}' ~ '^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$'))),
      '{}'::jsonb) ELSE m END
$$;
