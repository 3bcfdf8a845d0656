import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { SourceRecord } from '../sources/source.record';
import { ExternalTransactionRecord, presentExternalTransaction, PresentedExternalTransaction } from './external-transaction.record';
import { ExternalTransactionFilter, ExternalTransactionsRepository } from './external-transactions.repository';
import { IngestItemError, IngestRow, isIngestError, parseIngestItem } from './ingest-item';

/** Most items one ingest call (or one push) may carry. */
export const MAX_INGEST_ITEMS = 1000;

export interface IngestItemResult {
  /** As sent (null when the item had none usable). */
  externalId: string | null;
  status: 'created' | 'replayed' | 'error';
  record?: ExternalTransactionRecord;
  error?: IngestItemError;
}

export interface IngestOutcome {
  /** One per item, in input order. */
  results: IngestItemResult[];
  /** Rows the call created or found again, once each, in input order. */
  ids: string[];
  createdCount: number;
  replayedCount: number;
  errorCount: number;
}

const NEWEST_FIRST: ListOrder = {
  list: 'external_transactions',
  sortColumn: 'created_at',
  sortType: 'timestamptz',
  idColumn: 'id',
  idType: 'uuid',
  direction: 'DESC',
};

function notFound(id: string) {
  return LedgerErrors.error('not_found', { message: `No external transaction ${id}` });
}

@Injectable()
export class ExternalTransactionsService {
  constructor(
    private readonly rows: ExternalTransactionsRepository,
    private readonly pagination: Pagination,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Lands the items of one call on `source`, keyed by (source, external_id): new ones are created,
   * known ones are reported `replayed` and left exactly as they were (also a repeat inside the
   * call), bad ones are reported per item while the rest land. One statement for all valid items;
   * pass `manager` to run it inside the caller's transaction. The caller bounds the item count.
   */
  async ingest(scope: LedgerScope, source: SourceRecord, items: unknown[], manager: EntityManager = this.dataSource.manager): Promise<IngestOutcome> {
    const parsed = items.map((item, index) => parseIngestItem(item, index));
    const valid = parsed.filter((p): p is IngestRow => !isIngestError(p));
    const byExternalId = new Map<string, { record: ExternalTransactionRecord; created: boolean }>();
    if (valid.length > 0) {
      for (const { created, ...record } of await this.rows.insertNew(manager, scope, source.id, valid)) {
        byExternalId.set(record.externalId, { record, created });
      }
      const missing = [...new Set(valid.map((r) => r.externalId).filter((id) => !byExternalId.has(id)))];
      if (missing.length > 0) {
        for (const record of await this.rows.findByExternalIds(manager, scope, source.id, missing)) {
          byExternalId.set(record.externalId, { record, created: false });
        }
      }
    }
    const outcome: IngestOutcome = { results: [], ids: [], createdCount: 0, replayedCount: 0, errorCount: 0 };
    const seen = new Set<string>();
    parsed.forEach((p, index) => {
      if (isIngestError(p)) {
        const externalId = (items[index] as { external_id?: unknown } | null)?.external_id;
        outcome.results.push({ externalId: typeof externalId === 'string' ? externalId : null, status: 'error', error: p });
        outcome.errorCount++;
        return;
      }
      const found = byExternalId.get(p.externalId)!;
      const created = found.created && !seen.has(p.externalId);
      if (!seen.has(p.externalId)) outcome.ids.push(found.record.id);
      seen.add(p.externalId);
      outcome.results.push({ externalId: p.externalId, status: created ? 'created' : 'replayed', record: found.record });
      if (created) outcome.createdCount++;
      else outcome.replayedCount++;
    });
    return outcome;
  }

  /** 422 `invalid_request` (param `items`) unless there are 1 to MAX_INGEST_ITEMS items. */
  assertItemCount(items: unknown): asserts items is unknown[] {
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_INGEST_ITEMS) {
      throw LedgerErrors.error('invalid_request', {
        message: `items must be an array of 1 to ${MAX_INGEST_ITEMS} external transactions`,
        hint: `Split larger files into calls of at most ${MAX_INGEST_ITEMS} items; replays are harmless`,
        param: 'items',
      });
    }
  }

  async get(scope: LedgerScope, id: string): Promise<ExternalTransactionRecord> {
    const row = isUUID(id) ? await this.rows.find(scope, id) : null;
    if (!row) throw notFound(id);
    return row;
  }

  async list(scope: LedgerScope, filter: ExternalTransactionFilter, page: PageRequest): Promise<ListPage<PresentedExternalTransaction>> {
    if (filter.sourceId !== undefined && !isUUID(filter.sourceId)) return ListPage.empty(page);
    const after = page.cursor === undefined ? undefined : this.pagination.decode(NEWEST_FIRST, scope, page.cursor);
    const rows = await this.rows.list(scope, filter, after, page.limit + 1);
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit ? this.pagination.encode(NEWEST_FIRST, scope, { key: last.sortKey, id: last.id }) : null;
    const total = page.include_total === 'true' ? await this.rows.count(scope, filter) : undefined;
    return new ListPage(
      data.map(({ sortKey: _sortKey, ...row }) => presentExternalTransaction(row)),
      next !== null,
      next,
      total,
    );
  }
}
