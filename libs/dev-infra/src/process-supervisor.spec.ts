import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';

// The harness runs under Node's own loader (execa is ESM-only), compiled on the fly like the apps' process tests.
const SWC_REGISTER = path.resolve(__dirname, '../../testing/src/swc-register.js');
const HARNESS = path.resolve(__dirname, '../test/supervisor-harness.ts');

interface Harness {
  child: ChildProcess;
  /** Resolves with the next JSON line the harness prints that has `key`. */
  line(key: string): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startHarness(args: string[]): Harness {
  const child = spawn(process.execPath, ['-r', SWC_REGISTER, HARNESS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffered = '';
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => {
    buffered += c.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part));
    waiters.splice(0).forEach((w) => w());
  });
  // `close`, not `exit`: by then everything it printed has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let closed = false;
  void exited.then(() => (closed = true));
  const line = async (key: string) => {
    for (;;) {
      const hit = lines.find((l) => key in l);
      if (hit) return hit;
      if (closed) throw new Error(`harness exited without printing ${key}: ${stderr}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), exited]);
    }
  };
  return { child, line, exited };
}

/** Running, that is: an ended process its parent has not reaped yet (a zombie) counts as gone. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe('the launcher process supervisor', () => {
  const started: Harness[] = [];
  const harness = (args: string[]) => {
    const h = startHarness(args);
    started.push(h);
    return h;
  };
  afterEach(() => {
    for (const h of started.splice(0)) if (h.child.exitCode === null) h.child.kill('SIGKILL');
  });

  it('kills a child that ignores SIGTERM once the stop timeout has passed', async () => {
    const h = harness(['stop', '1000']);
    const { pid } = (await h.line('ready')) as { pid: number };
    await h.line('armed');
    h.child.kill('SIGINT');
    const { stoppedInMs } = (await h.line('stoppedInMs')) as { stoppedInMs: number };
    expect(stoppedInMs).toBeGreaterThanOrEqual(900);
    expect(stoppedInMs).toBeLessThan(4_000);
    expect(await h.exited).toEqual({ code: 0, signal: null });
    expect(await gone(pid, 1_000)).toBe(true);
  }, 30_000);

  it('does not wait for a child that died before the stop', async () => {
    const h = harness(['stop', '20000']);
    const { pid } = (await h.line('ready')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    expect(await h.line('exited')).toEqual({ exited: 'stubborn', how: 'SIGKILL' });
    h.child.kill('SIGINT');
    expect(((await h.line('stoppedInMs')) as { stoppedInMs: number }).stoppedInMs).toBeLessThan(1_000);
    expect(await h.exited).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('ends its children when it dies itself', async () => {
    const h = harness(['crash', '1000']);
    const { pid } = (await h.line('ready')) as { pid: number };
    await h.line('armed');
    expect((await h.exited).code).not.toBe(0);
    expect(await gone(pid, 3_000)).toBe(true);
  }, 30_000);

  it('leaves no service behind when it is killed outright (SIGKILL)', async () => {
    const h = harness(['orphan', '1000']);
    const { pid } = (await h.line('ready')) as { pid: number };
    await h.line('armed');
    h.child.kill('SIGKILL');
    expect(await gone(pid, 5_000)).toBe(true);
  }, 30_000);

  it('stops its database after the database was restarted under it', async () => {
    const h = harness(['postgres', '5000', String(await freePort())]);
    const { dataDir } = (await h.line('ready')) as { dataDir: string };
    const pidOf = () => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const before = pidOf();
    // pg_ctl sits beside the postgres binary the server was started from.
    const pgCtl = path.join(path.dirname(readFileSync(path.join(dataDir, 'postmaster.opts'), 'utf8').split(' ')[0]), 'pg_ctl');
    const asPostgres = process.getuid?.() === 0 ? { uid: Number(spawnSync('id', ['-u', 'postgres']).stdout), gid: Number(spawnSync('id', ['-g', 'postgres']).stdout) } : {};
    const restart = spawnSync(pgCtl, ['restart', '-D', dataDir, '-m', 'fast', '-w'], { ...asPostgres, stdio: 'ignore', timeout: 60_000 });
    expect(restart.status).toBe(0);
    const after = pidOf();
    expect(after).not.toBe(before);

    h.child.kill('SIGINT');
    expect(await h.exited).toEqual({ code: 0, signal: null });
    expect(await gone(after, 5_000)).toBe(true);
  }, 120_000);
});
