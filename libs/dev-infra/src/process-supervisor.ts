import type { Options, Result, ResultPromise } from 'execa';

type Execa = typeof import('execa').execa;

// execa is ESM-only: loaded on first use (Node 24 loads it from this CommonJS build too).
let loading: Promise<Execa> | undefined;
function execaOf(): Promise<Execa> {
  return (loading ??= import('execa').then((m) => m.execa));
}

export interface SupervisorOptions {
  /** How long a child has between SIGTERM and SIGKILL when stopped. */
  stopTimeoutMs: number;
}

export interface ChildSpec {
  file: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Give the child an IPC channel: a Node child can then tell when this process dies, even by SIGKILL. */
  ipc?: boolean;
  /** Run as another user (the `postgres` system user when we are root). */
  uid?: number;
  gid?: number;
}

/** How a child ended, for logs: its exit code or the signal that ended it. */
export function howItEnded(result: Pick<Result, 'exitCode' | 'signal'>): string {
  return result.signal ?? String(result.exitCode ?? 'unknown');
}

/**
 * Starts and stops the launcher's child processes. Stopping sends SIGTERM and, once `stopTimeoutMs`
 * has passed, SIGKILL, so one child that ignores SIGTERM cannot hold the stop up; a child that has
 * already exited costs nothing, since each child is watched through a promise settled on its exit,
 * never through an exit event that may have fired already. If the launcher itself exits or dies of
 * a signal it can catch, execa's cleanup ends every child still running.
 */
export class ProcessSupervisor {
  private readonly running = new Set<ResultPromise>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /**
   * Starts a long-running child with inherited output and answers its pid; `onExit` is told when it
   * ends on its own (not when stopAll ended it). (Not the execa handle: it is a thenable, so an async
   * function answering it would wait for the child to exit.)
   */
  async start(name: string, spec: ChildSpec, onExit: (name: string, how: string) => void): Promise<number | undefined> {
    if (this.stopping) throw new Error(`not starting ${name}: the supervisor is stopping`);
    const child = (await execaOf())(spec.file, spec.args ?? [], {
      ...this.common(spec),
      stdin: 'ignore',
      stdout: 'inherit',
      stderr: 'inherit',
    });
    this.running.add(child);
    void child.then((result) => {
      this.running.delete(child);
      if (!this.stopping) onExit(name, howItEnded(result));
    });
    return child.pid;
  }

  /** Runs a child to completion within `timeoutMs` (then it is stopped as above); resolves with its stdout. */
  async run(spec: ChildSpec, timeoutMs: number): Promise<string> {
    const child = (await execaOf())(spec.file, spec.args ?? [], {
      ...this.common(spec),
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'inherit',
      timeout: timeoutMs,
    });
    this.running.add(child);
    try {
      const result = await child;
      if (result.failed) throw new Error(`${spec.file} ${spec.args?.[0] ?? ''} failed (${result.shortMessage})`);
      return String(result.stdout);
    } finally {
      this.running.delete(child);
    }
  }

  /** Stops every child still running; resolves when all have exited, within stopTimeoutMs and a margin. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    const children = [...this.running];
    for (const child of children) child.kill('SIGTERM');
    const margin = new Promise<void>((resolve) => setTimeout(resolve, this.options.stopTimeoutMs + 2_000).unref());
    await Promise.race([Promise.all(children.map((c) => c.then(() => undefined))), margin]);
  }

  /** Options every child shares: never rejects (exits are reported), killed with SIGKILL after the grace period. */
  private common(spec: ChildSpec): Options & { reject: false } {
    return {
      env: spec.env,
      extendEnv: false,
      reject: false,
      cleanup: true,
      killSignal: 'SIGTERM',
      forceKillAfterDelay: this.options.stopTimeoutMs,
      ...(spec.ipc && { ipc: true }),
      ...(spec.uid !== undefined && { uid: spec.uid, gid: spec.gid }),
    };
  }
}
