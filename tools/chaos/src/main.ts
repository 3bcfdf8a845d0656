import { toolSettings } from '@bursar/dev-infra';
import { check, LOG_DIR, printResult, ScenarioResult } from './chaos-kit';
import { ChaosStack } from './chaos-stack';
import { controlUnderRestart, replicaCaches } from './control-scenarios';
import { ledgerKills, postgresRestarts, redisKill, Timing, workerKills } from './ledger-scenarios';

const settings = toolSettings({
  command: 'pnpm chaos',
  summary:
    'The fault campaign (`pnpm chaos:short` is CHAOS_SHORT=1). It starts its own PostgreSQL cluster and redis-server (never the\n' +
    'shared ones), the real services as child processes on scratch databases, and for each replica count runs every\n' +
    'scenario, printing a table per scenario. Exits 1 when an invariant breaks.',
  env: {
    CHAOS_SHORT: { help: '1: a few seconds per scenario instead of about a minute', default: '0' },
    CHAOS_REPLICAS: { help: 'comma list of replica counts of ledger, control and webhook-worker (default 1,2; short: 2)' },
    CHAOS_ONLY: { help: 'comma list of scenarios to run: postgres, ledger-kill, redis, workers, control, caches (default all)' },
    CHAOS_PG_BIN: { help: 'folder of the PostgreSQL binaries (initdb, pg_ctl) for its own cluster (default: found on the machine)' },
  },
});
const short = settings.CHAOS_SHORT === '1';
const replicaCounts = (settings.CHAOS_REPLICAS ?? (short ? '2' : '1,2')).split(',').map(Number);
const only = settings.CHAOS_ONLY?.split(',');

const timing: Timing = short
  ? { short, loadMs: 6_000, downMs: 2_000, retryMs: 30_000, drainMs: 30_000 }
  : { short, loadMs: 40_000, downMs: 5_000, retryMs: 90_000, drainMs: 120_000 };

const SCENARIOS: [string, (stack: ChaosStack, t: Timing) => Promise<ScenarioResult>, number][] = [
  ['postgres', postgresRestarts, 1],
  ['ledger-kill', ledgerKills, 1],
  ['redis', redisKill, 1],
  ['workers', workerKills, 1],
  ['control', controlUnderRestart, 1],
  ['caches', replicaCaches, 2],
];

async function main(): Promise<number> {
  const results: ScenarioResult[] = [];
  for (const replicas of replicaCounts) {
    const bootAt = Date.now();
    const stack = await ChaosStack.start(replicas);
    // Ctrl-C still stops what the campaign started (its Postgres, Redis and services).
    const interrupted = () => void stack.close().finally(() => process.exit(130));
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    process.stdout.write(`\n# ${replicas} replica(s) of ledger, control and webhook-worker; stack up in ${((Date.now() - bootAt) / 1000).toFixed(1)} s\n`);
    try {
      for (const [name, scenario, minReplicas] of SCENARIOS) {
        if ((only && !only.includes(name)) || replicas < minReplicas) continue;
        const processes = [...stack.ledgers, ...stack.controls, ...stack.workers];
        const before = processes.map((p) => p.crashes.length);
        const result = await scenario(stack, timing);
        const crashes = processes.flatMap((p, i) => p.crashes.slice(before[i]).map((c) => `${p.name} ${c}`));
        result.checks.unshift(check('no service process crashed (the campaign restarts one that does)', crashes.length === 0, crashes.length ? crashes.join(' | ') : 'none'));
        result.faults.push(...crashes.map((c) => `(crash) ${c.split(' exit')[0]}`));
        printResult(result);
        results.push(result);
      }
    } finally {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      await stack.close();
    }
  }
  const broken = results.flatMap((r) => r.checks.filter((c) => !c.ok).map((c) => `${r.name} [${r.replicas}]: ${c.name}`));
  process.stdout.write(`\nservice logs (warnings and errors): ${LOG_DIR}`);
  process.stdout.write(`\n${broken.length === 0 ? 'every invariant held' : `${broken.length} invariant(s) broken:\n  ${broken.join('\n  ')}`}\n`);
  return broken.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
