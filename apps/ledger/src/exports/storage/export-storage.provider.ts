import { Provider } from '@nestjs/common';
import { LedgerSettings } from '../../config/ledger.settings';
import { ExportLinkSigner } from '../export-link';
import { EXPORT_STORAGE, ExportStorage } from './export-storage';
import { LocalExportStorage } from './local-export-storage';
import { S3ExportStorage } from './s3-export-storage';

/** The store the settings name: S3 when EXPORT_S3_BUCKET is set, else the local folder. */
export function exportStorageFor(settings: LedgerSettings, signer: ExportLinkSigner): ExportStorage {
  if (settings.EXPORT_S3_BUCKET) {
    const keyId = settings.EXPORT_S3_ACCESS_KEY_ID;
    const secret = settings.EXPORT_S3_SECRET_ACCESS_KEY;
    return new S3ExportStorage({
      bucket: settings.EXPORT_S3_BUCKET,
      region: settings.EXPORT_S3_REGION,
      endpoint: settings.EXPORT_S3_ENDPOINT,
      publicEndpoint: settings.EXPORT_S3_PUBLIC_ENDPOINT,
      forcePathStyle: settings.EXPORT_S3_FORCE_PATH_STYLE,
      ...(keyId && secret && { credentials: { accessKeyId: keyId, secretAccessKey: secret } }),
    });
  }
  return new LocalExportStorage(settings.LEDGER_EXPORT_DIR, settings.publicUrl, signer);
}

export const exportStorageProviders: Provider[] = [
  { provide: ExportLinkSigner, inject: [LedgerSettings], useFactory: (s: LedgerSettings) => new ExportLinkSigner(s.rootKeys) },
  { provide: EXPORT_STORAGE, inject: [LedgerSettings, ExportLinkSigner], useFactory: exportStorageFor },
];
