import type { DataSource } from 'typeorm';

/** Escapes LIKE's wildcards so a secret is matched literally. */
const literal = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Every place in the database's own tables where one of `secrets` appears in the clear: each text,
 * varchar, json(b), text-array and bytea column of every table (information_schema), cast to text
 * (bytea as its escaped bytes). Returns `table.column: <first 12 characters of the secret>` per hit.
 */
export async function findSecretsInDatabase(dataSource: DataSource, secrets: string[]): Promise<{ hits: string[]; columns: number }> {
  const columns: { table_name: string; column_name: string; data_type: string }[] = await dataSource.query(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea') OR c.udt_name IN ('_text', '_varchar', '_jsonb'))`,
  );
  const hits: string[] = [];
  const patterns = secrets.map(literal);
  for (const c of columns) {
    const value = c.data_type === 'bytea' ? `encode("${c.column_name}", 'escape')` : `"${c.column_name}"::text`;
    const [row] = await dataSource.query(
      `SELECT array_agg(DISTINCT p.i) AS found FROM "${c.table_name}" r, unnest($1::text[]) WITH ORDINALITY AS p(pattern, i)
        WHERE ${value} LIKE p.pattern`,
      [patterns],
    );
    for (const i of (row.found as number[] | null) ?? []) hits.push(`${c.table_name}.${c.column_name}: ${secrets[Number(i) - 1].slice(0, 12)}`);
  }
  return { hits, columns: columns.length };
}
