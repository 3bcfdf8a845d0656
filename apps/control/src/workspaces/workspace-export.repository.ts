import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Tables an export carries, keyed by the name they take in the export document. */
const EXPORTED = {
  memberships: 'workspace_memberships',
  invitations: 'workspace_invitations',
  agents: 'agents',
  budgets: 'budgets',
  spend_tokens: 'spend_tokens',
  policy_modules: 'policy_modules',
  policies: 'policies',
  intents: 'intents',
  audit_events: 'audit_events',
  // Provider ids and plan state only: the provider's API key and webhook secret live in settings, never in a table.
  billing_accounts: 'billing_accounts',
  billing_checkouts: 'billing_checkouts',
  billing_events: 'billing_events',
} as const;
export type ExportedRecords = Record<keyof typeof EXPORTED, Record<string, unknown>[]>;

/** The column each table is ordered by (oldest first) when it is not `created_at`. */
const ORDER_COLUMN: Partial<Record<string, string>> = { billing_events: 'received_at' };

/** Hidden columns: digests and key lookups never leave the database, not even in an export. */
const SECRET_COLUMNS = ['key_lookup', 'key_digest', 'token_digest'];

@Injectable()
export class WorkspaceExportRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every record of the workspace, oldest first, read in one repeatable-read snapshot. */
  read(workspaceId: string): Promise<ExportedRecords> {
    return this.dataSource.transaction('REPEATABLE READ', async (em) => {
      const out = {} as ExportedRecords;
      for (const [name, table] of Object.entries(EXPORTED) as [keyof typeof EXPORTED, string][]) {
        const rows: Record<string, unknown>[] = await em.query(
          `SELECT to_jsonb(t) - $2::text[] AS row FROM ${table} t WHERE t.workspace_id = $1 ORDER BY t.${ORDER_COLUMN[table] ?? 'created_at'}, t.id`,
          [workspaceId, SECRET_COLUMNS],
        );
        out[name] = rows.map((r) => r.row as Record<string, unknown>);
      }
      return out;
    });
  }
}
