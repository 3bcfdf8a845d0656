import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlFile } from '../sql/sql-file';

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
    await q.query(sqlFile('anonymized-metadata.sql'));
    // A stored JSON document (event payload, delivery body) with every metadata/tags object
    // emptied and every party reference redacted, at any depth.
    await q.query(sqlFile('anonymized-document.sql'));
    // The same for a JSON text: returned byte for byte when nothing needed erasing, and left alone
    // when it is not JSON (it then carries no metadata structure to clear).
    await q.query(sqlFile('anonymized-json-text.sql'));

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
