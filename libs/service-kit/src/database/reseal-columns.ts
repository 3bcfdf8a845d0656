import type { DataSource } from 'typeorm';
import { type RootKeys, rootKeyId, type SecretBox } from '@bursar/crypto';

/** A column of sealed values and how to rebuild each row's AAD from its primary key. */
export interface SealedColumn {
  table: string;
  column: string;
  /** Primary-key columns, in index order (keyset pagination walks them). */
  key: string[];
  aad: (row: Record<string, string>) => string;
}

export interface ResealReport {
  table: string;
  column: string;
  /** Rows re-sealed under the current key. */
  resealed: number;
  /** Rows changed by the service between our read and our write (it sealed them under the current key itself). */
  skipped: number;
  /** Rows that no configured key opens: left as they are, the operator must look at them. */
  unreadable: number;
}

/**
 * Re-seals every value of `column` not yet under the box's current key (`currentKid`), online: the
 * rows are read in key order, `batchSize` at a time, and each is rewritten by its own conditional
 * UPDATE (one short transaction per row, no lock held across the batch) that applies only if the
 * value is still the one that was opened, so a concurrent write by the service always wins.
 */
export async function resealColumn(dataSource: DataSource, box: SecretBox, currentKid: string, target: SealedColumn, batchSize = 200): Promise<ResealReport> {
  const report: ResealReport = { table: target.table, column: target.column, resealed: 0, skipped: 0, unreadable: 0 };
  const keyList = target.key.map((k) => `"${k}"::text`).join(', ');
  const keyText = target.key.map((k) => `"${k}"::text AS "${k}"`).join(', ');
  const col = `"${target.column}"`;
  let after: string[] | null = null;
  for (;;) {
    // base64url kids may hold `_`, a LIKE wildcard: escape it so only this exact kid is skipped.
    const params: unknown[] = [`v2.${currentKid.replace(/_/g, '\\_')}.%`, batchSize];
    const position = after ? `AND (${keyList}) > (${after.map((_, i) => `$${i + 3}`).join(', ')})` : '';
    if (after) params.push(...after);
    const rows: Record<string, string>[] = await dataSource.query(
      `SELECT ${keyText}, ${col} AS sealed FROM "${target.table}"
        WHERE ${col} IS NOT NULL AND ${col} NOT LIKE $1 ${position}
        ORDER BY ${keyList} LIMIT $2`,
      params,
    );
    for (const row of rows) {
      let plain: string;
      try {
        plain = box.decrypt(row.sealed, target.aad(row));
      } catch {
        report.unreadable += 1;
        continue;
      }
      const match = target.key.map((k, i) => `"${k}"::text = $${i + 3}`).join(' AND ');
      const [, updated] = await dataSource.query(
        `UPDATE "${target.table}" SET ${col} = $1 WHERE ${col} = $2 AND ${match}`,
        [box.encrypt(plain, target.aad(row)), row.sealed, ...target.key.map((k) => row[k])],
      );
      if (updated === 1) report.resealed += 1;
      else report.skipped += 1;
    }
    if (rows.length < batchSize) return report;
    const last = rows[rows.length - 1];
    after = target.key.map((k) => last[k]);
  }
}

/** Re-seals every listed column under the current root key; the report the operator CLIs print. */
export async function resealAll(dataSource: DataSource, keys: RootKeys, columns: SealedColumn[], batchSize: number): Promise<Record<string, unknown>> {
  const box = keys.sealedRows();
  const reports: ResealReport[] = [];
  for (const target of columns) reports.push(await resealColumn(dataSource, box, keys.currentId, target, batchSize));
  const total = (field: 'resealed' | 'skipped' | 'unreadable') => reports.reduce((sum, r) => sum + r[field], 0);
  return { object: 'secret_key_rotation', kid: keys.currentId, previous_kids: keys.previous.map(rootKeyId), resealed: total('resealed'), skipped: total('skipped'), unreadable: total('unreadable'), columns: reports };
}
