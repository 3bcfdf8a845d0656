/** What an export can contain, in the order files are written when all are asked for. */
export const EXPORT_RESOURCES = ['accounts', 'transactions', 'postings', 'events'] as const;
export type ExportResource = (typeof EXPORT_RESOURCES)[number];

export const EXPORT_FORMATS = ['ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type ExportStatus = 'pending' | 'running' | 'ready' | 'failed';

/** One row of `exports`, as the repository reads it. */
export interface ExportRecord {
  id: string;
  ledgerId: string;
  status: ExportStatus;
  format: ExportFormat;
  resources: ExportResource[];
  errorMessage: string | null;
  /** Claims so far; the current claim's fencing token. */
  attempts: number;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const EXPORT_COLUMNS = `x.id, x.ledger_id AS "ledgerId", x.status, x.format, x.resources, x.error_message AS "errorMessage",
  x.attempts, x.expires_at AS "expiresAt", x.created_at AS "createdAt", x.updated_at AS "updatedAt"`;
