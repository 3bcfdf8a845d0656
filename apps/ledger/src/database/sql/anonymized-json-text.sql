-- The same for a JSON text: returned byte for byte when nothing needed erasing, and left alone
-- when it is not JSON (it then carries no metadata structure to clear).
CREATE OR REPLACE FUNCTION anonymized_json_text(body text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  doc jsonb;
  scrubbed jsonb;
BEGIN
  BEGIN
    doc := body::jsonb;
  EXCEPTION WHEN invalid_text_representation THEN
    RETURN body;
  END;
  scrubbed := anonymized_document(doc);
  RETURN CASE WHEN scrubbed = doc THEN body ELSE scrubbed::text END;
END $$;
