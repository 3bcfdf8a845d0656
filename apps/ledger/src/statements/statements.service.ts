import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { ApiError } from '@bursar/errors';
import { BalancesService } from '../balances/balances.service';
import { LedgerErrors } from '../common/ledger-errors';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { ExternalTransactionsService } from '../external-transactions/external-transactions.service';
import { EventsService } from '../events/events.service';
import { SourceRecord } from '../sources/source.record';
import { SourcesService } from '../sources/sources.service';
import { DETECT_BYTES, detectFormat, readStatement } from './parsers/detect';
import { EntryBatch, StatementEntry, StatementFormat, StatementSummary } from './parsers/statement';
import { BalanceCheck, presentStatementImport, PresentedStatementImport, StatementImportError, StatementImportRecord } from './statement-import.record';
import { StatementImportsRepository } from './statement-imports.repository';

const NEWEST_FIRST: ListOrder = {
  list: 'statement_imports',
  sortColumn: 'created_at',
  sortType: 'timestamptz',
  idColumn: 'id',
  idType: 'uuid',
  direction: 'DESC',
};

/** Rows per write: one set-based insert each. */
const STATEMENT_BATCH_ENTRIES = 5000;

/**
 * Entries the reader hands over at a time. Each is checked and turned into a compact row at once,
 * so few parsed objects live long enough to reach the old generation (whose garbage is what grows
 * a process's heap during a large import).
 */
const READ_BATCH_ENTRIES = 200;

/** A statement entry as an ingest item, so it passes the same checks and dedupe as a JSON push. */
function ingestItem(e: StatementEntry, accountReference: string): unknown {
  return {
    external_id: e.external_id,
    amount: e.amount,
    currency: e.currency,
    occurred_at: e.booking_date,
    ...(e.reference && { reference_rail: e.reference.rail, reference_kind: e.reference.kind, reference_value: e.reference.value }),
    raw: { ...e.raw, value_date: e.value_date, account_reference: accountReference },
  };
}

/** Built by createStatementsService (statements.factory.ts), for the Nest module and the operator CLI alike. */
export class StatementsService {
  constructor(
    private readonly imports: StatementImportsRepository,
    private readonly sources: SourcesService,
    private readonly externalTransactions: ExternalTransactionsService,
    private readonly balances: BalancesService,
    private readonly events: EventsService,
    private readonly pagination: Pagination,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Reads one statement file entry batch by entry batch, checks each entry as ingest does into a
   * compact row, and lands the rows STATEMENT_BATCH_ENTRIES at a time through the external
   * transactions' set-based ingest, inside one transaction with the import row: a file found
   * malformed part way rolls back whole, so it stores nothing. While one batch is written the next
   * is parsed, and no more than those two batches are held.
   */
  async import(scope: LedgerScope, sourceId: string, file: Buffer, format: StatementFormat | undefined): Promise<StatementImportRecord> {
    const source = await this.sources.get(scope, sourceId);
    const chosen = format ?? detectFormat(file.subarray(0, DETECT_BYTES).toString('utf8'));
    const reader = readStatement(file, chosen, source.csvMapping, READ_BATCH_ENTRIES);
    return this.dataSource.transaction(async (manager) => {
      let createdCount = 0, replayedCount = 0, index = 0;
      const errors: StatementImportError[] = [];
      let rows: string[] = [];
      let writing: Promise<void> = Promise.resolve();
      const write = async (batch: string[]) => {
        const outcome = await this.externalTransactions.ingestRows(scope, source, batch, manager);
        createdCount += outcome.createdCount;
        replayedCount += outcome.replayedCount;
      };
      const send = async () => {
        await writing;
        writing = write(rows);
        rows = [];
      };
      let next: IteratorResult<EntryBatch, StatementSummary[]>;
      try {
        for (next = reader.next(); !next.done; next = reader.next()) {
          for (const entry of next.value.entries) {
            const prepared = this.externalTransactions.prepareRow(ingestItem(entry, next.value.account_reference), index);
            // Items are numbered across the file, as entries.
            if ('error' in prepared) errors.push({ ...prepared.error, param: prepared.error.param.replace(/^items\[/, 'entries['), external_id: prepared.externalId });
            else rows.push(prepared.row);
            index++;
          }
          // The next rows are parsed while this batch is written.
          if (rows.length >= STATEMENT_BATCH_ENTRIES) await send();
        }
        if (rows.length) await send();
      } finally {
        // A refusal while a batch is in flight: let it settle before the transaction rolls back.
        await writing.catch(() => undefined);
      }
      await writing;
      const statements = next.value;
      const balanceChecks = await this.balanceChecks(scope, source, statements);
      const record = await this.imports.insert(manager, scope, {
        sourceId: source.id,
        format: chosen,
        statements,
        createdCount,
        replayedCount,
        errorCount: errors.length,
        errors,
        balanceChecks,
      });
      for (const check of balanceChecks.filter((c) => c.difference !== '0')) {
        await this.events.record(manager, scope, 'reconciliation.balance_mismatch', record.id, { statement_import_id: record.id, source_id: source.id, ...check });
      }
      return record;
    });
  }

  /**
   * Each statement's closing balance against the posted balance, at the end of the statement's last
   * day, of the account the source names for it: its account reference's entry in account_map, else
   * default_account_id. Statements without a closing balance, end date or account, in another
   * currency than the account, or naming an account the ledger lacks, are not checked.
   */
  private async balanceChecks(scope: LedgerScope, source: SourceRecord, statements: StatementSummary[]): Promise<BalanceCheck[]> {
    const checks: BalanceCheck[] = [];
    for (const s of statements) {
      const accountId = source.accountMap[s.account_reference] ?? source.defaultAccountId;
      if (accountId === null || s.closing_balance === null || s.to === null) continue;
      const endOfDay = new Date(Date.parse(`${s.to}T00:00:00Z`) + 86_400_000 - 1);
      let balance: { currency: string; posted: string };
      try {
        balance = await this.balances.balance(scope, accountId, endOfDay);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') continue;
        throw error;
      }
      if (balance.currency !== s.currency) continue;
      checks.push({
        account_reference: s.account_reference,
        account_id: accountId,
        statement_closing: s.closing_balance,
        ledger_balance: balance.posted,
        difference: (BigInt(s.closing_balance) - BigInt(balance.posted)).toString(),
      });
    }
    return checks;
  }

  async get(scope: LedgerScope, id: string): Promise<StatementImportRecord> {
    const row = isUUID(id) ? await this.imports.find(scope, id) : null;
    if (!row) throw LedgerErrors.error('not_found', { message: `No statement import ${id}` });
    return row;
  }

  /** The source's imports, newest first, a page at a time. */
  async listForSource(scope: LedgerScope, sourceId: string, page: PageRequest): Promise<ListPage<PresentedStatementImport>> {
    const source = await this.sources.get(scope, sourceId);
    const after = page.cursor === undefined ? undefined : this.pagination.decode(NEWEST_FIRST, scope, page.cursor);
    const rows = await this.imports.listBySource(scope, source.id, after, page.limit + 1);
    const total = page.include_total === 'true' ? await this.imports.countBySource(scope, source.id) : undefined;
    return this.pagination.pageOf(rows, NEWEST_FIRST, scope, page, presentStatementImport, total);
  }
}
