import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { Position } from '../common/pagination';
import { STATEMENT_IMPORT_COLUMNS, StatementImportRecord } from './statement-import.record';

export class StatementImportsRepository {
  constructor(private readonly dataSource: DataSource) {}

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

  /** Newest first, `limit` imports after `after`. */
  listBySource(scope: LedgerScope, sourceId: string, after: Position | undefined, limit: number): Promise<(StatementImportRecord & { sortKey: string })[]> {
    return this.dataSource.query(
      `SELECT ${STATEMENT_IMPORT_COLUMNS}, created_at::text AS "sortKey" FROM statement_imports
       WHERE ledger_id = $1 AND source_id = $2 AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [scope.ledgerId, sourceId, after?.key ?? null, after?.id ?? null, limit],
    );
  }

  async countBySource(scope: LedgerScope, sourceId: string): Promise<number> {
    const [row] = await this.dataSource.query(`SELECT count(*)::int AS n FROM statement_imports WHERE ledger_id = $1 AND source_id = $2`, [scope.ledgerId, sourceId]);
    return row.n;
  }
}
