import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TenantScope } from '../common/mode';

/** A stored anonymization run, as the API presents it. */
export interface AnonymizationRecord {
  id: string;
  reason: string | null;
  anonymizedAt: Date;
}

/**
 * One statement per place personal data can sit, each changing only rows it actually alters.
 * `$1` is the array of the tenant's ledger ids (every row of these tables names its ledger).
 * The scrubbing functions come from the 1763780000000-anonymizations migration.
 */
const ERASURES: Record<string, string> = {
  accounts: `UPDATE accounts SET metadata = anonymized_metadata(metadata),
      counterparty_ref = CASE WHEN counterparty_ref IS NULL THEN NULL ELSE 'REDACTED' END,
      lock_version = lock_version + 1, updated_at = clock_timestamp()
    WHERE ledger_id = ANY ($1) AND (metadata <> anonymized_metadata(metadata) OR counterparty_ref <> 'REDACTED')`,
  transactions: `UPDATE transactions SET metadata = anonymized_metadata(metadata), updated_at = clock_timestamp()
    WHERE ledger_id = ANY ($1) AND metadata <> anonymized_metadata(metadata)`,
  transaction_external_refs: `UPDATE transaction_external_refs SET metadata = anonymized_metadata(metadata)
    WHERE ledger_id = ANY ($1) AND metadata <> anonymized_metadata(metadata)`,
  // Tags are a posting's metadata; postings_immutable lets this one update through (see migration).
  postings: `UPDATE postings SET tags = '{}' WHERE ledger_id = ANY ($1) AND tags <> '{}'`,
  events: `UPDATE events SET data = anonymized_document(data)
    WHERE ledger_id = ANY ($1) AND data <> anonymized_document(data)`,
  webhook_deliveries: `UPDATE webhook_deliveries SET request_body = anonymized_json_text(request_body), updated_at = now()
    WHERE ledger_id = ANY ($1) AND request_body <> anonymized_json_text(request_body)`,
};

@Injectable()
export class AnonymizationRepository {
  /**
   * Erases the tenant's metadata and party references in the caller's transaction and records the
   * run. Locking the tenant's ledger rows first (FOR UPDATE conflicts with the key-share lock every
   * insert referencing a ledger takes) makes concurrent writes land wholly before or wholly after.
   */
  async anonymize(
    manager: EntityManager,
    scope: TenantScope,
    run: { clientId: string; reason: string | null },
  ): Promise<AnonymizationRecord> {
    const ledgers: { id: string }[] = await manager.query(
      `SELECT id FROM ledgers WHERE organization_id = $1 AND mode = $2 ORDER BY id FOR UPDATE`,
      [scope.organizationId, scope.mode],
    );
    // Transaction-local: the posting trigger's exemption ends with this transaction.
    await manager.query(`SELECT set_config('bursar.anonymizing', 'on', true)`);
    const ledgerIds = ledgers.map((l) => l.id);
    const counts: Record<string, number> = {};
    for (const [table, sql] of Object.entries(ERASURES)) {
      const [row] = await manager.query(`WITH changed AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM changed`, [ledgerIds]);
      counts[table] = row.n;
    }
    await manager.query(`SELECT set_config('bursar.anonymizing', 'off', true)`);
    const [record] = await manager.query(
      `INSERT INTO anonymizations (organization_id, mode, client_id, reason, counts) VALUES ($1, $2, $3, $4, $5)
       RETURNING id, reason, anonymized_at AS "anonymizedAt"`,
      [scope.organizationId, scope.mode, run.clientId, run.reason, JSON.stringify(counts)],
    );
    return record;
  }
}
