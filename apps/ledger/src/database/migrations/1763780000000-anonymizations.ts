import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant anonymization (POST /tenants/me/anonymize): the record of each run, the JSON scrubbers it
 * applies to stored documents, and the one sanctioned exception to posting immutability.
 *
 * `postings_immutable` is recreated with a WHEN clause that lets exactly one kind of UPDATE past
 * `postings_guard_update()`: clearing `tags` (a posting's metadata) with every other column
 * unchanged, and only in a transaction that ran `SET LOCAL bursar.anonymizing = 'on'`, which only
 * the anonymization repository does. Every other update still meets the guard, unchanged.
 */
export class Anonymizations1763780000000 implements MigrationInterface {
  name = 'Anonymizations1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE anonymizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id),
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        client_id text NOT NULL,
        reason text CHECK (length(reason) <= 1000),
        -- Rows changed per table: what the run did, without keeping anything it erased.
        counts jsonb NOT NULL,
        anonymized_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX anonymizations_organization_mode_idx ON anonymizations (organization_id, mode, anonymized_at)`);

    // Metadata emptied, except the ledger's own correction markers when they hold what the ledger
    // writes there (an id, a timestamp): they link money records, which anonymization keeps.
    await q.query(`
      CREATE FUNCTION anonymized_metadata(m jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN jsonb_typeof(m) = 'object' THEN coalesce(
          (SELECT jsonb_object_agg(key, value) FROM jsonb_each(m)
           WHERE jsonb_typeof(value) = 'string'
             AND ((key = '_refund_of' AND value #>> '{}' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
               OR (key = '_reverses_value_date' AND value #>> '{}' ~ '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$'))),
          '{}'::jsonb) ELSE m END
      $$`);
    // A stored JSON document (event payload, delivery body) with every metadata/tags object
    // emptied and every party reference redacted, at any depth.
    await q.query(`
      CREATE FUNCTION anonymized_document(doc jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
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
      END $$`);
    // The same for a JSON text: returned byte for byte when nothing needed erasing, and left alone
    // when it is not JSON (it then carries no metadata structure to clear).
    await q.query(`
      CREATE FUNCTION anonymized_json_text(body text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
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
      END $$`);

    await q.query(`DROP TRIGGER postings_immutable ON postings`);
    await q.query(`CREATE TRIGGER postings_immutable BEFORE UPDATE ON postings FOR EACH ROW
      WHEN (NOT (coalesce(current_setting('bursar.anonymizing', true), '') = 'on'
                 AND NEW.tags = '{}'::jsonb
                 AND to_jsonb(NEW) - 'tags' = to_jsonb(OLD) - 'tags'))
      EXECUTE FUNCTION postings_guard_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER postings_immutable ON postings`);
    await q.query(`CREATE TRIGGER postings_immutable BEFORE UPDATE ON postings FOR EACH ROW EXECUTE FUNCTION postings_guard_update()`);
    await q.query(`DROP FUNCTION anonymized_json_text, anonymized_document, anonymized_metadata`);
    await q.query(`DROP TABLE anonymizations`);
  }
}
