import { ExportRecord } from './export.record';

/** Wire shape of an export; `downloadUrls` (one per resource, in `resources` order) only while ready and unexpired. */
export function presentExport(x: ExportRecord, downloadUrls: string[]) {
  return {
    object: 'export' as const,
    id: x.id,
    status: x.status,
    format: x.format,
    resources: x.resources,
    download_urls: downloadUrls,
    expires_at: x.expiresAt?.toISOString() ?? null,
    error_message: x.errorMessage,
    created_at: x.createdAt.toISOString(),
    updated_at: x.updatedAt.toISOString(),
  };
}

export type PresentedExport = ReturnType<typeof presentExport>;
