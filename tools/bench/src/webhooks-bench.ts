import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { generateSecretKey } from '@bursar/crypto';
import { startAppProcess, startWebhookReceiver, startWorkerProcess, WebhookReceiver } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, percentile, redisUrl, report, scratchDatabase, sleep } from './bench-kit';

/*
 * `pnpm bench:webhooks`: the ledger service and BENCH_WORKERS worker processes (default 1) on a
 * scratch database deliver to a local receiver.
 *  1. Throughput: BENCH_EVENTS events (default 10000) are committed at once; the drain rate is
 *     reported per worker replica.
 *  2. Latency: events are committed at a steady BENCH_RATE per second (default 200) for 10 s;
 *     event-to-receipt is the receiver's clock minus the event's created_at (same machine).
 * Events are inserted into the events table directly, as the ledger's own transactions do.
 */

const settings = toolSettings({
  command: 'pnpm bench:webhooks',
  summary: 'The ledger service and worker processes on a scratch database deliver to a local receiver: the drain rate of events\ncommitted at once, then event-to-receipt latency at a steady rate for 10 s.',
  env: {
    BENCH_WORKERS: { help: 'worker processes', default: '1' },
    BENCH_EVENTS: { help: 'events committed at once for the throughput run', default: '10000' },
    BENCH_RATE: { help: 'events per second in the latency run', default: '200' },
    ...BENCH_SERVERS,
  },
});
const replicas = Number(settings.BENCH_WORKERS);
const total = Number(settings.BENCH_EVENTS);
const rate = Number(settings.BENCH_RATE);
const LATENCY_SECONDS = 10;

interface Ledger {
  organizationId: string;
  ledgerId: string;
}

async function bootstrapLedger(env: Record<string, string>, baseUrl: string, receiverUrl: string): Promise<Ledger> {
  const { organizationId, ledgerId, token } = await ledgerBenchClient(env, baseUrl);
  const created = await fetch(`${baseUrl}/ledger/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl }),
  });
  if (created.status !== 201) throw new Error(`endpoint creation failed: ${created.status} ${await created.text()}`);
  return { organizationId, ledgerId };
}

function insertEvents(pg: Client, ledger: Ledger, count: number, label: string): Promise<unknown> {
  return pg.query(
    `INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data)
     SELECT $1, $2, 'test', 'account.created', $3 || n, jsonb_build_object('id', $3 || n, 'object', 'account')
     FROM generate_series(1, $4) AS n`,
    [ledger.organizationId, ledger.ledgerId, `${label}-`, count],
  );
}

/** Unique events received so far (delivery is at-least-once), with their event-to-receipt latency. */
function receipts(receiver: WebhookReceiver, from = 0): Map<string, number> {
  const seen = new Map<string, number>();
  for (const r of receiver.received.slice(from)) {
    const event = JSON.parse(r.body) as { id: string; created_at: string };
    if (!seen.has(event.id)) seen.set(event.id, r.at - Date.parse(event.created_at));
  }
  return seen;
}

async function waitForUnique(receiver: WebhookReceiver, from: number, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receipts(receiver, from).size < count) {
    if (Date.now() > deadline) throw new Error(`only ${receipts(receiver, from).size} of ${count} events arrived`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const db = await scratchDatabase('webhooks');
  const env = {
    LEDGER_DATABASE_URL: db.url,
    LEDGER_SECRET_KEY: generateSecretKey(),
    REDIS_URL: redisUrl(),
    WEBHOOK_SECRET_KEY: generateSecretKey(),
    WEBHOOK_QUEUE_PREFIX: `bench-${randomBytes(4).toString('hex')}`,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    NODE_ENV: 'production',
  };
  const receiver = await startWebhookReceiver();
  const pg = new Client({ connectionString: db.url });
  const processes = [];
  try {
    const ledgerApp = await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', env);
    processes.push(ledgerApp);
    const ledger = await bootstrapLedger(env, `http://127.0.0.1:${ledgerApp.port}`, receiver.url);
    processes.push(...(await Promise.all(Array.from({ length: replicas }, () => startWorkerProcess(env)))));
    await pg.connect();

    const started = Date.now();
    await insertEvents(pg, ledger, total, 'burst');
    await waitForUnique(receiver, 0, total, 600_000);
    const seconds = (Math.max(...receiver.received.map((r) => r.at)) - started) / 1000;
    report(`Throughput: ${total} events committed at once, ${replicas} worker replica(s)`, {
      'deliveries/s (all replicas)': total / seconds,
      'deliveries/s per replica': total / seconds / replicas,
      'drain time (s)': seconds,
      'duplicate deliveries': receiver.received.length - total,
    });

    const from = receiver.received.length;
    const perTick = Math.max(1, Math.round(rate / 20));
    const ticks = LATENCY_SECONDS * 20;
    for (let i = 0; i < ticks; i++) {
      const tickStart = Date.now();
      await insertEvents(pg, ledger, perTick, `steady${i}`);
      await sleep(Math.max(0, 50 - (Date.now() - tickStart)));
    }
    await waitForUnique(receiver, from, perTick * ticks, 120_000);
    const latencies = [...receipts(receiver, from).values()];
    report(`Latency: ${perTick * 20} events/s for ${LATENCY_SECONDS} s (event committed -> receiver got it)`, {
      'p50 (ms)': percentile(latencies, 50),
      'p90 (ms)': percentile(latencies, 90),
      'p99 (ms)': percentile(latencies, 99),
      'max (ms)': Math.max(...latencies),
    });
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await pg.end().catch(() => undefined);
    await receiver.close();
    await db.drop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
