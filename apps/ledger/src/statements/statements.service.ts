import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ExternalTransactionsService, MAX_INGEST_ITEMS } from '../external-transactions/external-transactions.service';
import { SourcesService } from '../sources/sources.service';
import { detectFormat, parseStatement } from './parsers/detect';
import { ParsedStatement, StatementFormat } from './parsers/statement';
import { StatementImportError, StatementImportRecord } from './statement-import.record';
import { StatementImportsRepository } from './statement-imports.repository';

/** Most imports GET /sources/{id}/statements lists. */
export const STATEMENT_LIST_LIMIT = 100;

/** A statement entry as an ingest item, so it passes the same checks and dedupe as a JSON push. */
function ingestItems(statements: ParsedStatement[]): unknown[] {
  return statements.flatMap((s) =>
    s.entries.map((e) => ({
      external_id: e.external_id,
      amount: e.amount,
      currency: e.currency,
      occurred_at: e.booking_date,
      ...(e.reference && { reference_rail: e.reference.rail, reference_kind: e.reference.kind, reference_value: e.reference.value }),
      raw: { ...e.raw, value_date: e.value_date, account_reference: s.account_reference },
    })),
  );
}

@Injectable()
export class StatementsService {
  constructor(
    private readonly imports: StatementImportsRepository,
    private readonly sources: SourcesService,
    private readonly externalTransactions: ExternalTransactionsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Parses one statement file (refusing it whole, before anything is written, when malformed) and
   * ingests its entries through the external transactions' ingest, in batches of MAX_INGEST_ITEMS
   * inside one transaction with the import row.
   */
  async import(scope: LedgerScope, sourceId: string, file: Buffer, format: StatementFormat | undefined): Promise<StatementImportRecord> {
    const source = await this.sources.get(scope, sourceId);
    const text = file.toString('utf8');
    const chosen = format ?? detectFormat(text);
    const statements = parseStatement(text, chosen, source.csvMapping);
    const items = ingestItems(statements);
    return this.dataSource.transaction(async (manager) => {
      let createdCount = 0, replayedCount = 0;
      const errors: StatementImportError[] = [];
      for (let start = 0; start < items.length; start += MAX_INGEST_ITEMS) {
        const outcome = await this.externalTransactions.ingest(scope, source, items.slice(start, start + MAX_INGEST_ITEMS), manager);
        createdCount += outcome.createdCount;
        replayedCount += outcome.replayedCount;
        for (const r of outcome.results) {
          if (!r.error) continue;
          // Ingest numbers items within its batch; the import numbers entries across the file.
          const param = r.error.param.replace(/^items\[(\d+)\]/, (_m, i: string) => `entries[${start + Number(i)}]`);
          errors.push({ ...r.error, param, external_id: r.externalId });
        }
      }
      return this.imports.insert(manager, scope, {
        sourceId: source.id,
        format: chosen,
        statements: statements.map(({ entries, ...s }) => ({ ...s, entry_count: entries.length })),
        createdCount,
        replayedCount,
        errorCount: errors.length,
        errors,
        balanceChecks: [],
      });
    });
  }

  async get(scope: LedgerScope, id: string): Promise<StatementImportRecord> {
    const row = isUUID(id) ? await this.imports.find(scope, id) : null;
    if (!row) throw LedgerErrors.error('not_found', { message: `No statement import ${id}` });
    return row;
  }

  async listForSource(scope: LedgerScope, sourceId: string): Promise<StatementImportRecord[]> {
    const source = await this.sources.get(scope, sourceId);
    return this.imports.listBySource(scope, source.id, STATEMENT_LIST_LIMIT);
  }
}
