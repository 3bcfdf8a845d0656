import type { Readable } from 'node:stream';

/** One file of an export: a resource's NDJSON. */
export interface ExportFile {
  ledgerId: string;
  exportId: string;
  resource: string;
}

/** Where a file lives inside a store: one folder per ledger and export. */
export function exportFileKey(file: ExportFile): string {
  return `${file.ledgerId}/${file.exportId}/${file.resource}.ndjson`;
}

/**
 * Where export files go. `put` consumes the stream as it is produced (a store holds at most a
 * bounded buffer of it); `downloadUrl` answers a link that works without a bearer token until
 * `expiresAt`; `open` reads a file back.
 */
export interface ExportStorage {
  put(file: ExportFile, body: Readable): Promise<void>;
  downloadUrl(file: ExportFile, expiresAt: Date): Promise<string>;
  open(file: ExportFile): Promise<Readable>;
}

/** Nest token of the configured ExportStorage. */
export const EXPORT_STORAGE = Symbol('ExportStorage');
