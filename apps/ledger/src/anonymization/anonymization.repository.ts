import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TenantScope } from '../common/mode';

/** A stored anonymization run, as the API presents it. */
export interface AnonymizationRecord {
  id: string;
  reason: string | null;
  anonymizedAt: Date;
}

/** Every row of the tables below names its ledger; `$1`, `$2` are the organization and mode. */
const TENANT_LEDGERS = `ledger_id IN (SELECT id FROM ledgers WHERE organization_id = $1 AND mode = $2)`;

/**
 * One statement per place personal data can sit, each changing only rows it actually alters.
 * The scrubbing functions come from the 1763780000000-anonymizations migration.
 */
const ERASURES: Record<string, string> = {
  accounts: `UPDATE accounts SET metadata = anonymized_metadata(metadata),
      counterparty_ref = CASE WHEN counterparty_ref IS NULL THEN NULL ELSE 'REDACTED' END,
      lock_version = lock_version + 1, updated_at = clock_timestamp()
    WHERE ${TENANT_LEDGERS} AND (metadata <> anonymized_metadata(metadata) OR counterparty_ref <> 'REDACTED')`,
  transactions: `UPDATE transactions SET metadata = anonymized_metadata(metadata), updated_at = clock_timestamp()
    WHERE ${TENANT_LEDGERS} AND metadata <> anonymized_metadata(metadata)`,
  transaction_external_refs: `UPDATE transaction_external_refs SET metadata = anonymized_metadata(metadata)
    WHERE ${TENANT_LEDGERS} AND metadata <> anonymized_metadata(metadata)`,
  // Tags are a posting's metadata; postings_immutable lets this one update through (see migration).
  postings: `UPDATE postings SET tags = '{}' WHERE ${TENANT_LEDGERS} AND tags <> '{}'`,
  events: `UPDATE events SET data = anonymized_document(data)
    WHERE ${TENANT_LEDGERS} AND data <> anonymized_document(data)`,
  webhook_deliveries: `UPDATE webhook_deliveries SET request_body = anonymized_json_text(request_body), updated_at = now()
    WHERE ${TENANT_LEDGERS} AND request_body <> anonymized_json_text(request_body)`,
};

@Injectable()
export class AnonymizationRepository {
  /** Ids of every ledger of the tenant's mode, archived ones included, in lock order. */
  async ledgerIds(manager: EntityManager, scope: TenantScope): Promise<string[]> {
    const rows: { id: string }[] = await manager.query(
      `SELECT id FROM ledgers WHERE organization_id = $1 AND mode = $2 ORDER BY id`,
      [scope.organizationId, scope.mode],
    );
    return rows.map((r) => r.id);
  }

  /** Erases the tenant's metadata and party references in the caller's transaction; records the run. */
  async anonymize(
    manager: EntityManager,
    scope: TenantScope,
    run: { clientId: string; reason: string | null },
  ): Promise<AnonymizationRecord> {
    // Transaction-local: the posting trigger's exemption ends with this transaction.
    await manager.query(`SELECT set_config('bursar.anonymizing', 'on', true)`);
    const counts: Record<string, number> = {};
    for (const [table, sql] of Object.entries(ERASURES)) {
      const [row] = await manager.query(`WITH changed AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM changed`, [
        scope.organizationId,
        scope.mode,
      ]);
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
