import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/*
 * The outside anchors of `pnpm bench:ledger`: transfers written in the database by pgbench
 * (`-M prepared`, one transfer per database transaction, the same clients and slices as the
 * HTTP runs), through
 *   - bench_bare_transfer (ledger-bare-transfer.sql), the least a transfer can write on the
 *     service's own tables, on the bench's scratch database;
 *   - pgledger, a public pure-SQL PostgreSQL ledger, on a database the operator loaded it into
 *     (BENCH_PGLEDGER_DATABASE_URL), with accounts the bench makes through its public functions.
 * Both scripts are written here: pick two distinct accounts of a list passed in with -D (account ids
 * hold colons, which pgbench would read as variables inside the script), one call.
 */

const run = promisify(execFile);

/** What one pgbench slice did: transactions completed and how long it ran. */
export interface AnchorSlice {
  ok: number;
  duration: number;
}

/**
 * WAL one call wrote: records and bytes, the mean over the calls that logged no full-page image (the
 * steady cost; the first change of a page after a checkpoint logs the whole page), and how many full
 * pages a call logged on average.
 */
export interface CallWal {
  records: number;
  bytes: number;
  fpi: number;
}

/** `count` calls of `call(i)`, each under EXPLAIN (ANALYZE, WAL): only this session's WAL, the commit record aside. */
export async function walOfCalls(pg: Client, count: number, call: (i: number) => { text: string; values: unknown[] }): Promise<CallWal> {
  const plain = { calls: 0, records: 0, bytes: 0 };
  let fpi = 0;
  for (let i = 0; i < count; i++) {
    const { text, values } = call(i);
    const { rows } = await pg.query(`EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${text}`, values);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    fpi += plan['WAL FPI'];
    if (plan['WAL FPI'] === 0) Object.assign(plain, { calls: plain.calls + 1, records: plain.records + plan['WAL Records'], bytes: plain.bytes + plan['WAL Bytes'] });
  }
  return { records: plain.records / plain.calls, bytes: plain.bytes / plain.calls, fpi: fpi / count };
}

/** A pgbench-driven writer of transfers between accounts of a list. */
export interface Anchor {
  name: string;
  /** It writes on the bench's own ledger, so the books check counts its transfers. */
  onBenchLedger: boolean;
  /** WAL of `count` sequential transfers over the spread accounts. */
  wal(count: number): Promise<CallWal>;
  /** A slice of `clients` pgbench clients over `accounts` (1-based positions into the list given at creation). */
  slice(clients: number, seconds: number, accounts: 'spread' | 'hot'): Promise<AnchorSlice>;
}

/**
 * pgbench's picks, in its own expression language: `a` uniformly, then `b` any other of the n
 * accounts (as pickPair does in ledger-bench.ts).
 */
function pickScript(call: string): string {
  return ['\\set a random(1, :n)', '\\set d random(1, :n - 1)', '\\set b 1 + (:a + :d - 1) % :n', call, ''].join('\n');
}

/**
 * Runs `script` with `clients` pgbench clients for `seconds` (whole seconds, at least 1) against `url`,
 * with synchronous_commit on as the service's database has it.
 */
async function pgbench(url: string, script: string, clients: number, seconds: number, vars: Record<string, string>): Promise<AnchorSlice> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ledger-anchor-'));
  const file = path.join(dir, 'transfer.sql');
  writeFileSync(file, script);
  const args = ['-n', '-M', 'prepared', '-c', String(clients), '-j', '1', '-T', String(Math.max(1, Math.round(seconds))), '-f', file];
  for (const [name, value] of Object.entries(vars)) args.push('-D', `${name}=${value}`);
  try {
    const { stdout } = await run('pgbench', [...args, url], { env: { ...process.env, PGOPTIONS: '-c synchronous_commit=on' } });
    const ok = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
    if (!Number.isFinite(ok) || !Number.isFinite(tps) || failed > 0) throw new Error(`pgbench: ${stdout}`);
    return { ok, duration: ok / tps };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Account lists as pgbench -D values: a PostgreSQL array literal and its length. */
function accountVars(ids: string[]): Record<string, string> {
  return { accounts: `{${ids.join(',')}}`, n: String(ids.length) };
}

/** bench_bare_transfer on the bench's scratch database, over the service's own accounts. */
export async function bareAnchor(url: string, pg: Client, ledgerId: string, lists: Record<'spread' | 'hot', string[]>): Promise<Anchor> {
  await pg.query(readFileSync(path.join(__dirname, 'ledger-bare-transfer.sql'), 'utf8'));
  const script = pickScript(`SELECT bench_bare_transfer(:ledger::uuid, (:accounts::text[])[:b], (:accounts::text[])[:a], 125, 'USD');`);
  return {
    name: 'bare reference (bench_bare_transfer)',
    onBenchLedger: true,
    slice: (clients, seconds, accounts) => pgbench(url, script, clients, seconds, { ledger: ledgerId, ...accountVars(lists[accounts]) }),
    wal: (count) =>
      walOfCalls(pg, count, (i) => ({
        text: `SELECT bench_bare_transfer($1, $2, $3, 125, 'USD')`,
        values: [ledgerId, lists.spread[i % lists.spread.length], lists.spread[(i + 1) % lists.spread.length]],
      })),
  };
}

/**
 * pgledger on the operator's database: the bench makes its own 50 spread and 2 hot accounts there
 * (named after this run) through pgledger_create_account, then transfers with pgledger_create_transfer.
 */
export async function pgledgerAnchor(url: string, spread: number, hot: number): Promise<Anchor & { end(): Promise<void> }> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const label = `bursar-bench-${Date.now()}`;
  const create = async (kind: string, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push((await pg.query(`SELECT id FROM pgledger_create_account($1, 'USD')`, [`${label}:${kind}:${i}`])).rows[0].id);
    }
    return ids;
  };
  const lists = { spread: await create('spread', spread), hot: await create('hot', hot) };
  const script = pickScript(`SELECT id FROM pgledger_create_transfer((:accounts::text[])[:a], (:accounts::text[])[:b], 1.25);`);
  return {
    name: 'pgledger (pgledger_create_transfer)',
    onBenchLedger: false,
    slice: (clients, seconds, accounts) => pgbench(url, script, clients, seconds, accountVars(lists[accounts])),
    wal: (count) =>
      walOfCalls(pg, count, (i) => ({
        text: `SELECT id FROM pgledger_create_transfer($1, $2, 1.25)`,
        values: [lists.spread[(i + 1) % lists.spread.length], lists.spread[i % lists.spread.length]],
      })),
    end: () => pg.end(),
  };
}
