import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ExportLinkSigner } from '../export-link';
import { ExportFile, exportFileKey, ExportStorage } from './export-storage';

/**
 * Export files in a local folder (the embedded default), downloaded from the ledger itself at
 * GET /ledger/v1/exports/{id}/files/{resource} under a signed, expiring link.
 */
export class LocalExportStorage implements ExportStorage {
  private readonly root: string;

  constructor(
    dir: string,
    private readonly publicUrl: string,
    private readonly signer: ExportLinkSigner,
  ) {
    this.root = resolve(dir);
  }

  async put(file: ExportFile, body: Readable): Promise<void> {
    const path = this.pathOf(file);
    // Written aside and renamed, so a reader never sees half a file (a retried export overwrites it whole).
    const partial = `${path}.partial`;
    try {
      await mkdir(dirname(path), { recursive: true });
      await pipeline(body, createWriteStream(partial));
      await rename(partial, path);
    } catch (err) {
      body.destroy();
      await rm(partial, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  async downloadUrl(file: ExportFile, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const query = new URLSearchParams({ ledger_id: file.ledgerId, expires: String(expires), signature: this.signer.sign(file, expires) });
    return `${this.publicUrl}/ledger/v1/exports/${file.exportId}/files/${file.resource}?${query}`;
  }

  async open(file: ExportFile): Promise<Readable> {
    const path = this.pathOf(file);
    await stat(path); // a missing file fails here, before any byte of the answer is sent
    return createReadStream(path);
  }

  private pathOf(file: ExportFile): string {
    return join(this.root, ...exportFileKey(file).split('/'));
  }
}
