import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { LOGGER } from '@bursar/service-kit';
import { AccountEntity } from '../accounts/account.entity';
import { presentAccount } from '../accounts/account.presenter';
import { LedgerScope } from '../common/mode';
import { LedgerSettings } from '../config/ledger.settings';
import { EventRecord, presentEvent } from '../events/event.record';
import { PostingEntity } from '../postings/posting.entity';
import { presentPosting } from '../postings/posting.presenter';
import { TransactionsService } from '../transactions/transactions.service';
import { ExportRecord, ExportResource } from './export.record';
import { ClaimedExport, ExportsRepository, PositionedTransaction } from './exports.repository';
import { EXPORT_STORAGE, ExportStorage } from './storage/export-storage';

/** Rows read per query; a page's lines are the most of a file held in memory at once. */
const PAGE_SIZE = 1000;
/** Transactions bring their postings and references along, so fewer per page. */
const TRANSACTION_PAGE_SIZE = 250;
/** Claims after which an export that keeps dying (say, it runs the process out of memory) is failed. */
export const MAX_EXPORT_ATTEMPTS = 3;

/**
 * NDJSON lines of `fetch`'s rows, one page at a time: each page is read only when the consumer
 * (the storage upload) asks for more, so memory stays bounded whatever the table's size.
 */
async function* keysetLines<R>(
  fetch: (after: R | null, limit: number) => Promise<R[]>,
  present: (rows: R[]) => Promise<unknown[]> | unknown[],
  limit = PAGE_SIZE,
): AsyncGenerator<string> {
  let after: R | null = null;
  for (;;) {
    const rows = await fetch(after, limit);
    if (rows.length === 0) return;
    const objects = await present(rows);
    yield objects.map((o) => `${JSON.stringify(o)}\n`).join('');
    if (rows.length < limit) return;
    after = rows[rows.length - 1];
  }
}

/**
 * Writes a claimed export: every requested resource, as the API presents it, one object per line,
 * one file per resource. All files are read inside one read-only REPEATABLE READ transaction, so
 * they describe the ledger at a single moment (a posting in the postings file has its transaction
 * in the transactions file).
 */
@Injectable()
export class ExportWriter {
  constructor(
    private readonly exports: ExportsRepository,
    private readonly transactions: TransactionsService,
    private readonly settings: LedgerSettings,
    @Inject(EXPORT_STORAGE) private readonly storage: ExportStorage,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Takes the export to ready or failed; never throws for a failure it could record. */
  async write({ record, scope }: ClaimedExport): Promise<void> {
    const attempt = record.attempts;
    if (attempt > MAX_EXPORT_ATTEMPTS) {
      await this.exports.finish(scope, record.id, attempt, { errorMessage: `The export stopped ${MAX_EXPORT_ATTEMPTS} times; create a new export` });
      return;
    }
    const beat = setInterval(
      () => void this.exports.heartbeat(scope, record.id, attempt).catch(() => undefined),
      Math.max(50, Math.floor(this.settings.LEDGER_EXPORT_STALE_AFTER_MS / 4)),
    );
    try {
      await this.writeFiles(scope, record);
      const expiresAt = new Date(Date.now() + this.settings.LEDGER_EXPORT_URL_TTL_SECONDS * 1000);
      await this.exports.finish(scope, record.id, attempt, { expiresAt });
    } catch (err) {
      this.logger.error({ err, export_id: record.id }, 'export failed');
      // Recorded when the database allows; else the export stays running and is claimed again once stale.
      await this.exports
        .finish(scope, record.id, attempt, { errorMessage: 'Writing the export files failed; create a new export' })
        .catch(() => undefined);
    } finally {
      clearInterval(beat);
    }
  }

  private async writeFiles(scope: LedgerScope, record: ExportRecord): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction('REPEATABLE READ');
      await runner.query('SET TRANSACTION READ ONLY');
      for (const resource of record.resources) {
        const body = Readable.from(this.lines(runner.manager, scope, resource));
        await this.storage.put({ ledgerId: scope.ledgerId, exportId: record.id, resource }, body);
      }
      await runner.commitTransaction();
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }

  private lines(manager: EntityManager, scope: LedgerScope, resource: ExportResource): AsyncGenerator<string> {
    switch (resource) {
      case 'accounts':
        return keysetLines<AccountEntity>((after, n) => this.exports.accountsAfter(manager, scope, after, n), (rows) => rows.map((a) => presentAccount(a)));
      case 'transactions':
        return keysetLines<PositionedTransaction>(
          (after, n) => this.exports.transactionsAfter(manager, scope, after, n),
          (rows) => this.transactions.present(scope, rows, new Set(), manager),
          TRANSACTION_PAGE_SIZE,
        );
      case 'postings':
        return keysetLines<PostingEntity>((after, n) => this.exports.postingsAfter(manager, scope, after, n), (rows) => rows.map((p) => presentPosting(p)));
      case 'events':
        return keysetLines<EventRecord>((after, n) => this.exports.eventsAfter(manager, scope, after, n), (rows) => rows.map((e) => presentEvent(e)));
    }
  }
}
