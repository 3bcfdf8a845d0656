import autocannon from 'autocannon';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, overReplicas, report } from './bench-kit';
import { floorDecision, startFloor } from './floor-kit';

/*
 * `pnpm bench:floor`: what the fixed stack (Nest on Express, ioredis, pg, durable commits) can do
 * on this machine before any of the services' own work, so the speed targets can be read against
 * it. floor-app.ts does the least a transfer or a decision needs (see there), in a child process
 * loaded by autocannon from this one, as the service benchmarks are. BENCH_SECONDS (default 10),
 * BENCH_REPLICAS (default 1; each replica gets its share of the connections).
 */

const settings = toolSettings({
  command: 'pnpm bench:floor',
  summary: 'What the fixed stack (Nest on Express, ioredis, pg, durable commits) can do on this machine before any of the\nservices\' own work, loaded by autocannon, so the speed targets can be read against it.',
  env: {
    BENCH_SECONDS: { help: 'seconds per run', default: '10' },
    BENCH_REPLICAS: { help: 'floor app processes, each with its share of the connections', default: '1' },
    ...BENCH_SERVERS,
  },
});
const seconds = Number(settings.BENCH_SECONDS);
const replicas = Number(settings.BENCH_REPLICAS);

async function load(bases: string[], path: string, connections: number, title: string, body?: () => string): Promise<void> {
  // Fewer clients than replicas leaves the extra replicas idle.
  const used = bases.slice(0, connections);
  const results = await Promise.all(
    used.map((base, r) =>
      autocannon({
        url: base + path,
        connections: Math.floor(connections / used.length) + (r < connections % used.length ? 1 : 0),
        duration: seconds,
        ...(body && {
          method: 'POST',
          requests: [{ setupRequest: (req) => ({ ...req, headers: { 'Content-Type': 'application/json' }, body: body() }) }],
        }),
      }),
    ),
  );
  const { sum, worst } = overReplicas(results);
  report(title + (used.length > 1 ? ` [${used.length} replicas]` : ''), {
    'requests/s': sum((r) => r.requests.average),
    'p50 ms': worst((r) => r.latency.p50),
    'p99 ms': worst((r) => r.latency.p99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors + r.timeouts),
  });
}

async function main(): Promise<void> {
  const floor = await startFloor(replicas);
  try {
    const { bases } = floor;
    const pair = () => {
      const i = Math.floor(Math.random() * 50);
      const j = (i + 1 + Math.floor(Math.random() * 49)) % 50;
      return JSON.stringify({ from: `acct:${i}`, to: `acct:${j}`, amount: 125 });
    };
    await load(bases, '/bare', 32, 'GET, no work, 32 connections');
    await load(bases, '/decide', 32, 'decision skeleton (Redis hit, one read, one audit insert), 32 connections', floorDecision);
    await load(bases, '/decide-batched', 32, 'the same with reads and inserts batched, 32 connections', floorDecision);
    for (const clients of [1, 4]) {
      await load(bases, '/transfer', clients, `transfer skeleton (Redis hit, BEGIN + lock, write, COMMIT), ${clients} client(s)`, pair);
    }
  } finally {
    await floor.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
