import type { CsvMapping } from '../statements/parsers/csv.parser';

/** A reconciliation source row; the inbound token and secret stay sealed. */
export interface SourceRecord {
  id: string;
  ledgerId: string;
  name: string;
  kind: string;
  description: string | null;
  implicit: boolean;
  defaultStrategy: 'exact' | 'sum_in_window';
  defaultWindowSeconds: number;
  defaultToleranceMinorUnits: string;
  defaultAccountId: string | null;
  /** Statement account reference -> ledger account id, for balance checks. */
  accountMap: Record<string, string>;
  inboundEnabled: boolean;
  inboundTokenSealed: string | null;
  inboundSecretSealed: string | null;
  csvMapping: CsvMapping | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export const SOURCE_COLUMNS = `id, ledger_id AS "ledgerId", name, kind, description, implicit, default_strategy AS "defaultStrategy",
  default_window_seconds AS "defaultWindowSeconds", default_tolerance_minor_units::text AS "defaultToleranceMinorUnits",
  default_account_id AS "defaultAccountId", account_map AS "accountMap", inbound_enabled AS "inboundEnabled", inbound_token_sealed AS "inboundTokenSealed",
  inbound_secret_sealed AS "inboundSecretSealed", csv_mapping AS "csvMapping", metadata, created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Source of reference s.12. Connector syncs are dashboard-only (not on this API), so the sync_*
 * fields always read as "never synced".
 */
export function presentSource(source: SourceRecord, inboundUrl: string | null) {
  return {
    object: 'source' as const,
    id: source.id,
    name: source.name,
    kind: source.kind,
    description: source.description,
    implicit: source.implicit,
    default_strategy: source.defaultStrategy,
    default_window_seconds: source.defaultWindowSeconds,
    default_tolerance_minor_units: source.defaultToleranceMinorUnits,
    default_account_id: source.defaultAccountId,
    account_map: source.accountMap,
    inbound_enabled: source.inboundEnabled,
    inbound_url: source.inboundEnabled ? inboundUrl : null,
    sync_enabled: false,
    sync_status: null,
    sync_error: null,
    connected_ref: null,
    last_synced_at: null,
    csv_mapping: source.csvMapping,
    metadata: source.metadata,
    created_at: source.createdAt.toISOString(),
    updated_at: source.updatedAt.toISOString(),
  };
}

export type PresentedSource = ReturnType<typeof presentSource>;
