import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@bursar/dev-infra';

const root = path.resolve(__dirname, '../../..');

/** `node -r` this to run the repository's TypeScript sources directly (aliases included). */
export const SWC_REGISTER = path.join(__dirname, 'swc-register.js');

/** Runs one of the repository's TypeScript entry points (a migration, an operator CLI) to completion; resolves with its stdout. */
export function runScript(entry: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(root, entry), ...args], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${entry} ${args.join(' ')} failed: ${err}`))));
  });
}

export interface AppProcess {
  port: number;
  /** What it wrote on stdout so far (its log lines, when LOG_LEVEL lets them through). */
  stdout(): string;
  /** SIGKILL: no shutdown hook runs, the way a crashed or evicted pod ends. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * One of the apps as a child process running its TypeScript sources (`entry` relative to the
 * repository root, e.g. `apps/webhook-worker/src/main.ts`), on a free port given through
 * `portVariable`; resolves once GET /healthz answers.
 */
export async function startAppProcess(entry: string, portVariable: string, env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(root, entry)], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env, [portVariable]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited during start: ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not become healthy: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stdout: () => stdout,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export type WorkerProcess = AppProcess;

/** The real webhook worker as a child process. */
export function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  return startAppProcess('apps/webhook-worker/src/main.ts', 'WORKER_PORT', env);
}
