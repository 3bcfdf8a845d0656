import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Readable } from 'node:stream';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ExportLinkSigner } from './export-link';
import { presentExport, PresentedExport } from './export.presenter';
import { EXPORT_RESOURCES, ExportRecord, ExportResource } from './export.record';
import { ExportsRepository } from './exports.repository';
import { CreateExportDto } from './dto/create-export.dto';
import { EXPORT_STORAGE, ExportStorage } from './storage/export-storage';

/** A download link as it arrives: every part is the client's, so each is checked before use. */
export interface ExportLink {
  ledgerId: string;
  exportId: string;
  resource: string;
  expires: string;
  signature: string;
}

function linkRefused(): never {
  throw LedgerErrors.error('forbidden', {
    message: 'This download link is invalid or has expired',
    hint: 'Read the export again (GET /ledger/v1/exports/{id}) for fresh links',
  });
}

@Injectable()
export class ExportsService {
  constructor(
    private readonly exports: ExportsRepository,
    private readonly signer: ExportLinkSigner,
    @Inject(EXPORT_STORAGE) private readonly storage: ExportStorage,
  ) {}

  /** Records the export as pending; the worker writes it (see ExportsWorker). */
  async create(scope: LedgerScope, body: CreateExportDto): Promise<PresentedExport> {
    const resources = [...new Set(body.resources ?? EXPORT_RESOURCES)];
    return this.present(await this.exports.insert(scope, body.format ?? 'ndjson', resources));
  }

  async get(scope: LedgerScope, id: string): Promise<PresentedExport> {
    const found = isUUID(id) ? await this.exports.findById(scope, id) : null;
    if (!found) throw LedgerErrors.error('not_found', { message: 'No export with this id in this ledger' });
    return this.present(found);
  }

  /** A file behind a ledger-signed link: 403 for a link that is malformed, tampered with or expired. */
  async open(link: ExportLink): Promise<{ resource: ExportResource; body: Readable }> {
    const { ledgerId, exportId, resource } = link;
    const wellFormed =
      typeof link.signature === 'string' &&
      typeof link.expires === 'string' &&
      /^\d{1,12}$/.test(link.expires) &&
      typeof ledgerId === 'string' &&
      isUUID(ledgerId) &&
      isUUID(exportId) &&
      (EXPORT_RESOURCES as readonly string[]).includes(resource);
    if (!wellFormed || !this.signer.verify({ ledgerId, exportId, resource }, Number(link.expires), link.signature)) linkRefused();
    const found = await this.exports.findById({ ledgerId }, exportId);
    if (found?.status !== 'ready' || !found.resources.includes(resource as ExportResource)) {
      throw LedgerErrors.error('not_found', { message: 'No such export file' });
    }
    return { resource: resource as ExportResource, body: await this.storage.open({ ledgerId, exportId, resource }) };
  }

  private async present(x: ExportRecord): Promise<PresentedExport> {
    const expiresAt = x.status === 'ready' ? x.expiresAt : null;
    const urls =
      expiresAt && expiresAt.getTime() > Date.now()
        ? await Promise.all(x.resources.map((resource) => this.storage.downloadUrl({ ledgerId: x.ledgerId, exportId: x.id, resource }, expiresAt)))
        : [];
    return presentExport(x, urls);
  }
}
