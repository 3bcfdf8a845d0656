import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '@bursar/dev-infra';

const run = promisify(execFile);

/** The newest Debian PostgreSQL binaries (initdb and pg_ctl are not on the PATH there). */
function binDir(): string {
  if (process.env.CHAOS_PG_BIN) return process.env.CHAOS_PG_BIN;
  const versions = readdirSync('/usr/lib/postgresql');
  const newest = versions.map(Number).filter(Number.isFinite).sort((a, b) => b - a)[0];
  if (newest === undefined) throw new Error('no PostgreSQL under /usr/lib/postgresql; set CHAOS_PG_BIN');
  return `/usr/lib/postgresql/${newest}/bin`;
}

/**
 * A PostgreSQL cluster of the campaign's own (initdb into a temporary folder, loopback port, no
 * unix socket), so restarting it never disturbs the shared server other work uses. Postgres refuses
 * to run as root, so as root every command runs as the `postgres` user, which owns the folder.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(path.join(tmpdir(), 'bursar-chaos-pg-'));
    const pg = new PrivatePostgres(await freePort(), dir, binDir());
    if (process.getuid?.() === 0) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
    await pg.cmd('initdb', ['-D', pg.data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await pg.ctl('start');
    return pg;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  private async cmd(binary: string, args: string[]): Promise<void> {
    const file = path.join(this.bin, binary);
    const [exe, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
    await run(exe, argv, { timeout: 60_000 });
  }

  /**
   * `pg_ctl <action>`, waiting until done. fsync is off: the campaign restarts the server cleanly
   * (fast shutdown writes everything), it never crashes the machine, and the disk is shared.
   */
  private ctl(action: 'start' | 'restart' | 'stop'): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=400 -c fsync=off -c full_page_writes=off`;
    const args = ['-D', this.data, '-w', '-t', '60', '-l', path.join(this.dir, 'postgres.log')];
    if (action !== 'stop') args.push('-o', options);
    if (action !== 'start') args.push('-m', 'fast');
    return this.cmd('pg_ctl', [action, ...args]);
  }

  /** `pg_ctl restart -m fast`: every connection is cut, the server is back within a second or so. */
  restart(): Promise<void> {
    return this.ctl('restart');
  }

  stop(): Promise<void> {
    return this.ctl('stop');
  }

  startAgain(): Promise<void> {
    return this.ctl('start');
  }

  async createDatabase(name: string): Promise<string> {
    const client = new Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /** Stops the server and removes its folder. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
