import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, redisAnswers } from '@bursar/dev-infra';
import { SWC_REGISTER } from '@bursar/testing';

/*
 * Shared pieces of `pnpm chaos`: processes the campaign may kill and start again on the same port
 * (services and a private redis-server), bounded HTTP calls, answer tallies and the report tables.
 */

export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Where the services' logs go (one file per process, appended across restarts). */
export const LOG_DIR = mkdtempSync(path.join(tmpdir(), 'bursar-chaos-logs-'));

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

async function waitFor(ok: () => Promise<boolean>, what: string, alive: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (!alive()) throw new Error(`${what} exited during start`);
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * One of the apps as a child process running its TypeScript sources on a fixed port, so a replica
 * killed with SIGKILL comes back where its clients expect it.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private stderr = '';
  /** Exits the campaign did not cause, with their time and last stderr line; each is restarted like a supervisor would. */
  readonly crashes: string[] = [];
  private expectExit = false;

  private constructor(
    readonly name: string,
    private readonly entry: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly healthPath: string,
  ) {}

  static async start(name: string, entry: string, portVariable: string, env: Record<string, string>, healthPath = '/healthz'): Promise<ServiceProcess> {
    const port = await freePort();
    const service = new ServiceProcess(name, entry, port, { ...env, [portVariable]: String(port) }, healthPath);
    await service.boot();
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async boot(): Promise<void> {
    this.stderr = '';
    // Warnings and errors (JSON lines) of every run of this process, for explaining a broken invariant.
    const log = openSync(path.join(LOG_DIR, `${this.name}.log`), 'a');
    const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(REPO_ROOT, this.entry)], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...this.env },
      stdio: ['ignore', log, 'pipe'],
    });
    closeSync(log);
    this.child = child;
    this.expectExit = false;
    child.once('exit', (code, signal) => {
      if (this.expectExit || this.child !== child) return;
      const lines = this.stderr.split('\n');
      const last = lines.find((line) => /^\w*error\b.*:/i.test(line.trim())) ?? lines.find((line) => /error/i.test(line)) ?? '';
      this.crashes.push(`${new Date().toISOString()} exit ${code ?? signal}: ${last.slice(0, 200)}`);
      void sleep(500).then(() => (this.child === child && !this.expectExit ? this.boot() : undefined)).catch(() => undefined);
    });
    child.stderr?.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString()).slice(-4000);
      appendFileSync(path.join(LOG_DIR, `${this.name}.log`), c);
    });
    try {
      await waitFor(
        () => fetch(`${this.url}${this.healthPath}`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false),
        this.name,
        () => child.exitCode === null && child.signalCode === null,
      );
    } catch (err) {
      child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}: ${this.stderr}`);
    }
  }

  /** SIGKILL: no shutdown hook runs, the way a crashed or evicted pod ends. */
  async kill(): Promise<void> {
    if (!this.child) return;
    this.expectExit = true;
    this.child.kill('SIGKILL');
    await exited(this.child);
  }

  /** SIGTERM, and SIGKILL if the drain outlasts `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectExit = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited(child);
    clearTimeout(timer);
  }
}

/** A redis-server of the campaign's own (memory only) that it kills and starts again on the same port. */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.boot();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async boot(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    this.child = child;
    await waitFor(() => redisAnswers(this.url, 200), 'redis-server', () => child.exitCode === null && child.signalCode === null, 10_000);
  }

  /** SIGKILL: everything it held (queued jobs, rate-limit buckets) is gone. */
  async kill(): Promise<void> {
    if (!this.child) return;
    this.child.kill('SIGKILL');
    await exited(this.child);
  }

  async stop(): Promise<void> {
    if (!this.child) return;
    this.child.kill('SIGTERM');
    await exited(this.child);
  }
}

export interface Answer {
  /** HTTP status, or `network` (refused or reset) / `timeout` (no answer within the client's limit). */
  status: number | 'network' | 'timeout';
  ms: number;
  // Read loosely on purpose: under faults any shape (or none) may come back, and checks probe it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers | undefined;
}

/** One HTTP call bounded by `timeoutMs`; never throws. */
export async function call(method: string, url: string, opts: { headers?: Record<string, string>; body?: unknown; form?: string; timeoutMs?: number } = {}): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method,
      headers: { ...(opts.body !== undefined && { 'content-type': 'application/json' }), ...opts.headers },
      body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, ms: Date.now() - started, body, headers: res.headers };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    return { status: timedOut ? 'timeout' : 'network', ms: Date.now() - started, body: undefined, headers: undefined };
  }
}

/** Answers counted by status. */
export class Tally {
  readonly counts = new Map<string, number>();
  sent = 0;

  add(answer: Answer): void {
    this.sent += 1;
    const key = String(answer.status);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  count(predicate: (status: string) => boolean): number {
    let n = 0;
    for (const [status, c] of this.counts) if (predicate(status)) n += c;
    return n;
  }

  toString(): string {
    return [...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, c]) => `${s}:${c}`).join(' ') || '-';
  }
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  name: string;
  replicas: number;
  seconds: number;
  faults: string[];
  tally: Tally;
  lost: number;
  duplicated: number;
  partial: number;
  figures: Record<string, string | number>;
  checks: Check[];
}

export function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}

/** Prints one scenario's table: faults, requests, answers, lost / duplicated / partial writes, then each invariant. */
export function printResult(r: ScenarioResult): void {
  const rows: [string, string][] = [
    ['replicas', String(r.replicas)],
    ['duration (s)', r.seconds.toFixed(1)],
    ['faults injected', `${r.faults.length}: ${r.faults.join('; ') || '-'}`],
    ['requests sent', String(r.tally.sent)],
    ['answers by status', r.tally.toString()],
    ['lost writes', String(r.lost)],
    ['duplicated writes', String(r.duplicated)],
    ['partial writes', String(r.partial)],
    ...Object.entries(r.figures).map(([k, v]): [string, string] => [k, typeof v === 'number' ? String(Number(v.toFixed(1))) : v]),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const out = [`\n== ${r.name} ==`, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), '  invariants:'];
  for (const c of r.checks) {
    out.push(`    [${c.ok ? 'ok  ' : 'FAIL'}] ${c.name}: ${c.detail}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Runs `tasks` with at most `limit` in flight. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}
