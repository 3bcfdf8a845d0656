/*
 * A stand-in for the launcher, run as its own process by process-supervisor.spec.ts (execa is
 * ESM-only, so it runs under Node's own loader rather than jest's). Prints one JSON line once its
 * children run, then stops on SIGINT the way the launcher does.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/embedded-postgres';
import { ProcessSupervisor } from '../src/process-supervisor';

const SWC_REGISTER = path.resolve(__dirname, '../../testing/src/swc-register.js');
const RUN_SERVICE = path.resolve(__dirname, '../../service-kit/src/http/run-service.ts');
const mode = process.argv[2];
const stopTimeoutMs = Number(process.argv[3] ?? 1_000);
const supervisor = new ProcessSupervisor({ stopTimeoutMs });
// A child that shrugs off SIGTERM (a service stuck in its shutdown hook), or one that honours it.
// Either says when its handler is in place, through the output it shares with the harness.
const armed = `console.log(JSON.stringify({ armed: true })); setInterval(() => undefined, 1000);`;
const stubborn = `process.on('SIGTERM', () => undefined); ${armed}`;
const polite = `process.on('SIGTERM', () => process.exit(0)); ${armed}`;

function report(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function main(): Promise<void> {
  // Like the launcher, it stays up until told to stop, whatever its children do.
  setInterval(() => undefined, 1_000);
  if (mode === 'postgres') {
    const dataDir = path.join(await mkdtemp(path.join(tmpdir(), 'supervisor-pg-')), 'postgres');
    const port = Number(process.argv[4]);
    const pg = await startEmbeddedPostgres({ dataDir, port, persistent: false, stopTimeoutMs });
    report({ ready: true, dataDir });
    process.on('SIGINT', () => void pg.stop().then(() => process.exit(0)));
    return;
  }
  // `orphan`: a child that, like the services, stops when the channel to its parent closes.
  const orphan = `require(${JSON.stringify(RUN_SERVICE)}).stopWhenParentGoes(); process.on('SIGTERM', () => process.exit(0)); ${armed}`;
  const script = { crash: polite, orphan }[mode] ?? stubborn;
  const args = mode === 'orphan' ? ['-r', SWC_REGISTER, '-e', script] : ['-e', script];
  const pid = await supervisor.start('stubborn', { file: process.execPath, args, env: { PATH: process.env.PATH }, ipc: mode === 'orphan' }, (name, how) =>
    report({ exited: name, how }),
  );
  report({ ready: true, pid });
  if (mode === 'crash') setTimeout(() => { throw new Error('the launcher itself fails'); }, 200);
  process.on('SIGINT', () => {
    const started = Date.now();
    void supervisor.stopAll().then(() => {
      report({ stoppedInMs: Date.now() - started });
      process.exit(0);
    });
  });
}

void main();
