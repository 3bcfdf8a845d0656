-- A stored JSON document (event payload, delivery body) with every metadata/tags object
-- emptied and every party reference redacted, at any depth.
CREATE OR REPLACE FUNCTION anonymized_document(doc jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF jsonb_typeof(doc) = 'object' THEN
    RETURN coalesce((SELECT jsonb_object_agg(key, CASE
        WHEN key = 'metadata' THEN anonymized_metadata(value)
        WHEN key = 'tags' AND jsonb_typeof(value) = 'object' THEN '{}'::jsonb
        WHEN key IN ('counterparty_ref', 'sender_party_id', 'recipient_party_id') AND jsonb_typeof(value) <> 'null'
          THEN '"REDACTED"'::jsonb
        ELSE anonymized_document(value) END)
      FROM jsonb_each(doc)), '{}'::jsonb);
  ELSIF jsonb_typeof(doc) = 'array' THEN
    RETURN coalesce((SELECT jsonb_agg(anonymized_document(value) ORDER BY n)
      FROM jsonb_array_elements(doc) WITH ORDINALITY AS x(value, n)), '[]'::jsonb);
  END IF;
  RETURN doc;
END $$;
