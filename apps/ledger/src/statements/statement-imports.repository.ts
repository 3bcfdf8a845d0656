import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { STATEMENT_IMPORT_COLUMNS, StatementImportRecord } from './statement-import.record';

@Injectable()
export class StatementImportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, scope: LedgerScope, r: Omit<StatementImportRecord, 'id' | 'createdAt'>): Promise<StatementImportRecord> {
    const [row] = await manager.query(
      `INSERT INTO statement_imports (ledger_id, source_id, format, statements, created_count, replayed_count, error_count, errors, balance_checks)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8::jsonb, $9::jsonb) RETURNING ${STATEMENT_IMPORT_COLUMNS}`,
      [scope.ledgerId, r.sourceId, r.format, JSON.stringify(r.statements), r.createdCount, r.replayedCount, r.errorCount, JSON.stringify(r.errors), JSON.stringify(r.balanceChecks)],
    );
    return row;
  }

  async find(scope: LedgerScope, id: string): Promise<StatementImportRecord | null> {
    const [row] = await this.dataSource.query(`SELECT ${STATEMENT_IMPORT_COLUMNS} FROM statement_imports WHERE ledger_id = $1 AND id = $2`, [scope.ledgerId, id]);
    return row ?? null;
  }

  /** Newest first, at most `limit`. */
  async listBySource(scope: LedgerScope, sourceId: string, limit: number): Promise<StatementImportRecord[]> {
    return this.dataSource.query(
      `SELECT ${STATEMENT_IMPORT_COLUMNS} FROM statement_imports WHERE ledger_id = $1 AND source_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
      [scope.ledgerId, sourceId, limit],
    );
  }
}
