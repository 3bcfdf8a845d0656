import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { ApiError } from '@bursar/errors';
import { BalancesService } from '../balances/balances.service';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ExternalTransactionsService, MAX_INGEST_ITEMS } from '../external-transactions/external-transactions.service';
import { EventsService } from '../events/events.service';
import { SourceRecord } from '../sources/source.record';
import { SourcesService } from '../sources/sources.service';
import { detectFormat, parseStatement } from './parsers/detect';
import { ParsedStatement, StatementFormat } from './parsers/statement';
import { BalanceCheck, StatementImportError, StatementImportRecord } from './statement-import.record';
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
    private readonly balances: BalancesService,
    private readonly events: EventsService,
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
    const balanceChecks = await this.balanceChecks(scope, source, statements);
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
      const record = await this.imports.insert(manager, scope, {
        sourceId: source.id,
        format: chosen,
        statements: statements.map(({ entries, ...s }) => ({ ...s, entry_count: entries.length })),
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
   * day, of the account the source names (default_account_id); statements without a closing balance
   * or end date, or in another currency than the account, are not checked.
   */
  private async balanceChecks(scope: LedgerScope, source: SourceRecord, statements: ParsedStatement[]): Promise<BalanceCheck[]> {
    const accountId = source.defaultAccountId;
    if (accountId === null) return [];
    const checks: BalanceCheck[] = [];
    for (const s of statements) {
      if (s.closing_balance === null || s.to === null) continue;
      const endOfDay = new Date(Date.parse(`${s.to}T00:00:00Z`) + 86_400_000 - 1);
      let balance: { currency: string; posted: string };
      try {
        balance = await this.balances.balance(scope, accountId, endOfDay);
      } catch (error) {
        // An account the source names but the ledger lacks has no balance to compare.
        if (error instanceof ApiError && error.code === 'not_found') return [];
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

  async listForSource(scope: LedgerScope, sourceId: string): Promise<StatementImportRecord[]> {
    const source = await this.sources.get(scope, sourceId);
    return this.imports.listBySource(scope, source.id, STATEMENT_LIST_LIMIT);
  }
}
