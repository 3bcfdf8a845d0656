import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { CsvMapping } from '../statements/parsers/csv.parser';
import { LedgerScope } from '../common/mode';
import { Position } from '../common/pagination';
import { SOURCE_COLUMNS, SourceRecord } from './source.record';

/** The matching settings a source carries; absent fields keep their value (or the default). */
export interface SourceSettings {
  kind?: string;
  description?: string | null;
  defaultStrategy?: string;
  defaultWindowSeconds?: number;
  defaultToleranceMinorUnits?: string;
  defaultAccountId?: string | null;
  accountMap?: Record<string, string>;
  csvMapping?: CsvMapping | null;
  metadata?: Record<string, unknown>;
}

@Injectable()
export class SourcesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Creates the source, or promotes an implicit one of the same name (an inline run made it) by
   * giving it the settings and clearing `implicit`, in one statement so two creates cannot both
   * win. Null when an explicit source already holds the name.
   */
  async createOrPromote(scope: LedgerScope, name: string, s: SourceSettings): Promise<{ source: SourceRecord; created: boolean } | null> {
    const [row] = await this.dataSource.query(
      `INSERT INTO reconciliation_sources AS s (ledger_id, name, kind, description, default_strategy, default_window_seconds,
         default_tolerance_minor_units, default_account_id, metadata, csv_mapping, account_map)
       VALUES ($1, $2, COALESCE($3, 'custom'), $4, COALESCE($5, 'exact'), COALESCE($6, 86400), COALESCE($7::numeric, 0), $8, COALESCE($9::jsonb, '{}'), $10::jsonb,
         COALESCE($11::jsonb, '{}'))
       ON CONFLICT (ledger_id, name) DO UPDATE SET
         implicit = false,
         kind = COALESCE($3, s.kind),
         description = COALESCE($4, s.description),
         default_strategy = COALESCE($5, s.default_strategy),
         default_window_seconds = COALESCE($6, s.default_window_seconds),
         default_tolerance_minor_units = COALESCE($7::numeric, s.default_tolerance_minor_units),
         default_account_id = COALESCE($8, s.default_account_id),
         metadata = COALESCE($9::jsonb, s.metadata),
         csv_mapping = COALESCE($10::jsonb, s.csv_mapping),
         account_map = COALESCE($11::jsonb, s.account_map),
         updated_at = clock_timestamp()
       WHERE s.implicit
       RETURNING ${SOURCE_COLUMNS}, (xmax = 0) AS created`,
      [
        scope.ledgerId, name, s.kind ?? null, s.description ?? null, s.defaultStrategy ?? null, s.defaultWindowSeconds ?? null,
        s.defaultToleranceMinorUnits ?? null, s.defaultAccountId ?? null, s.metadata === undefined ? null : JSON.stringify(s.metadata),
        s.csvMapping ? JSON.stringify(s.csvMapping) : null, s.accountMap === undefined ? null : JSON.stringify(s.accountMap),
      ],
    );
    if (!row) return null;
    const { created, ...source } = row;
    return { source, created };
  }

  /**
   * The source of that name, created implicit with default settings when absent. ON CONFLICT makes
   * concurrent callers agree on one row: the loser's insert waits for the winner's commit, and the
   * read that follows sees it.
   */
  async findOrCreateImplicit(manager: EntityManager, scope: LedgerScope, name: string): Promise<SourceRecord> {
    const [inserted] = await manager.query(
      `INSERT INTO reconciliation_sources (ledger_id, name, implicit) VALUES ($1, $2, true)
       ON CONFLICT (ledger_id, name) DO NOTHING RETURNING ${SOURCE_COLUMNS}`,
      [scope.ledgerId, name],
    );
    if (inserted) return inserted;
    const [existing] = await manager.query(`SELECT ${SOURCE_COLUMNS} FROM reconciliation_sources WHERE ledger_id = $1 AND name = $2`, [
      scope.ledgerId,
      name,
    ]);
    return existing;
  }

  /** `lock` holds the row (FOR UPDATE) until the caller's transaction ends. */
  async find(scope: LedgerScope, id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<SourceRecord | null> {
    const [row] = await manager.query(
      `SELECT ${SOURCE_COLUMNS} FROM reconciliation_sources WHERE ledger_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [scope.ledgerId, id],
    );
    return row ?? null;
  }

  /** Newest first, `limit` rows after `after`. */
  list(scope: LedgerScope, after: Position | undefined, limit: number): Promise<(SourceRecord & { sortKey: string })[]> {
    return this.dataSource.query(
      `SELECT ${SOURCE_COLUMNS}, created_at::text AS "sortKey" FROM reconciliation_sources
       WHERE ledger_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [scope.ledgerId, after?.key ?? null, after?.id ?? null, limit],
    );
  }

  count(scope: LedgerScope): Promise<number> {
    return this.dataSource
      .query(`SELECT count(*)::int AS n FROM reconciliation_sources WHERE ledger_id = $1`, [scope.ledgerId])
      .then(([row]) => row.n);
  }

  /** Applies the given fields only (`description`, `default_account_id` and `csv_mapping` may be set to null). */
  async update(manager: EntityManager, scope: LedgerScope, id: string, s: SourceSettings): Promise<SourceRecord | null> {
    const [rows] = await manager.query(
      `UPDATE reconciliation_sources SET
         description = CASE WHEN $3 THEN $4 ELSE description END,
         default_strategy = COALESCE($5, default_strategy),
         default_window_seconds = COALESCE($6, default_window_seconds),
         default_tolerance_minor_units = COALESCE($7::numeric, default_tolerance_minor_units),
         default_account_id = CASE WHEN $8 THEN $9 ELSE default_account_id END,
         metadata = COALESCE($10::jsonb, metadata),
         csv_mapping = CASE WHEN $11 THEN $12::jsonb ELSE csv_mapping END,
         account_map = COALESCE($13::jsonb, account_map),
         updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2 RETURNING ${SOURCE_COLUMNS}`,
      [
        scope.ledgerId, id, s.description !== undefined, s.description ?? null, s.defaultStrategy ?? null, s.defaultWindowSeconds ?? null,
        s.defaultToleranceMinorUnits ?? null, s.defaultAccountId !== undefined, s.defaultAccountId ?? null,
        s.metadata === undefined ? null : JSON.stringify(s.metadata), s.csvMapping !== undefined, s.csvMapping ? JSON.stringify(s.csvMapping) : null,
        s.accountMap === undefined ? null : JSON.stringify(s.accountMap),
      ],
    );
    return rows[0] ?? null;
  }
}
