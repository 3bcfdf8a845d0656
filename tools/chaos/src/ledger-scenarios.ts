import { call, check, Check, ScenarioResult, sleep, Tally } from './chaos-kit';
import { ChaosStack } from './chaos-stack';
import { checkBooks, checkBooksLog, checkDeliveries, EventsPoller, LedgerWriters } from './ledger-load';
import { authorizeMany } from './control-load';

/** How long each part of a scenario lasts: `pnpm chaos:short` runs each for a few seconds. */
export interface Timing {
  short: boolean;
  /** Load phase of a scenario, in ms. */
  loadMs: number;
  /** How long a stopped dependency stays down. */
  downMs: number;
  /** How long keys keep being retried after the load phase. */
  retryMs: number;
  /** How long webhook deliveries may take to drain after the load. */
  drainMs: number;
}

async function outageProbe(stack: ChaosStack, label: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [r, ledger] of stack.ledgers.entries()) {
    const ready = await call('GET', `${ledger.url}/readyz`, { timeoutMs: 5000 });
    checks.push(check(`${label}: ledger-${r} /readyz fails while Postgres is down`, ready.status === 503, `answered ${ready.status} in ${ready.ms} ms`));
    const write = await stack.ledgerCall('POST', '/transactions', { postings: [] }, r, { 'Idempotency-Key': `probe-${label}-${r}-${Date.now()}` });
    checks.push(check(`${label}: ledger-${r} write answers 503 within 2 s`, write.status === 503 && write.ms <= 2000, `answered ${write.status} in ${write.ms} ms`));
    if (write.status === 503) {
      checks.push(check(`${label}: ledger-${r} 503 carries an error code`, !!write.body?.error?.code, `error ${JSON.stringify(write.body?.error ?? write.body)}`));
    }
  }
  return checks;
}

/** Polls every ledger replica's /readyz until 200; the ms it took. */
async function readyAgain(urls: string[], timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (const url of urls) {
    while ((await call('GET', `${url}/readyz`, { timeoutMs: 2000 })).status !== 200) {
      if (Date.now() - started > timeoutMs) return Infinity;
      await sleep(100);
    }
  }
  return Date.now() - started;
}

function no500(tally: Tally, what: string, oddities: string[] = []): Check {
  const n = tally.count((s) => s === '500' || s === 'timeout');
  const examples = oddities.length ? `; e.g. ${oddities.join(' | ')}` : '';
  return check(`${what}: no 500 and no hung request`, n === 0, `${tally.count((s) => s === '500')} answered 500, ${tally.count((s) => s === 'timeout')} unanswered within 10 s${examples}`);
}

async function ledgerOutcome(
  stack: ChaosStack,
  name: string,
  writers: LedgerWriters,
  faults: string[],
  started: number,
  t: Timing,
  extra: Check[],
  figures: Record<string, number | string>,
): Promise<ScenarioResult> {
  await stack.reconnect();
  const books = await checkBooks(stack, writers);
  const log = await checkBooksLog(stack);
  const deliveries = await checkDeliveries(stack, t.drainMs, writers.receiptsAtStart);
  return {
    name,
    replicas: stack.replicas,
    seconds: (Date.now() - started) / 1000,
    faults,
    tally: writers.tally,
    lost: books.lost,
    duplicated: books.duplicated,
    partial: books.partial,
    figures: { ...figures, ...books.figures, ...log.figures, ...deliveries.figures, 'answers slower than 2 s': writers.slowAnswers },
    checks: [
      no500(writers.tally, 'ledger writes', writers.oddities),
      check('5xx answers carry an error code', writers.uncoded5xx === 0, `${writers.uncoded5xx} 5xx answers with code null`),
      ...extra,
      ...books.checks,
      ...log.checks,
      ...deliveries.checks,
    ],
  };
}

/** 1. Twenty writers while Postgres restarts twice: `pg_ctl restart -m fast`, then a stop held down before starting again. */
export async function postgresRestarts(stack: ChaosStack, t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  const writers = new LedgerWriters(stack, t.retryMs);
  const checks: Check[] = [];
  const faults: string[] = [];
  const poller = new EventsPoller(stack);
  writers.start(20);
  poller.start();
  await sleep(t.loadMs / 4);
  await stack.pg.restart();
  faults.push('pg_ctl restart -m fast');
  const firstRecovery = await readyAgain(stack.ledgers.map((l) => l.url));
  checks.push(check('ready again after restart', Number.isFinite(firstRecovery), `all replicas ready ${firstRecovery} ms after the restart returned`));
  await sleep(t.loadMs / 4);
  await stack.pg.stop();
  const downAt = Date.now();
  checks.push(...(await outageProbe(stack, 'stopped')));
  await sleep(Math.max(0, t.downMs - (Date.now() - downAt)));
  await stack.pg.startAgain();
  faults.push(`pg_ctl stop -m fast, down ${((Date.now() - downAt) / 1000).toFixed(1)} s, start`);
  const recovery = await readyAgain(stack.ledgers.map((l) => l.url));
  checks.push(check('recovers by itself', Number.isFinite(recovery), `all replicas ready ${recovery} ms after Postgres started`));
  await sleep(Math.max(0, started + t.loadMs - Date.now()));
  await writers.stop();
  await poller.stop();
  await stack.reconnect();
  const tail = await poller.missed();
  checks.push(check('a poller tailing GET /events newest-first misses nothing', tail.missed === 0, `missed ${tail.missed} of ${tail.events} events over ${poller.polls} polls`));
  return ledgerOutcome(stack, 'ledger: 20 writers, Postgres restarted twice', writers, faults, started, t, checks, { 'ready again after restart (ms)': firstRecovery, 'ready again after start (ms)': recovery });
}

/** 2. The ledger process SIGKILLed mid-batch three times, restarted on its port; retries replay. */
export async function ledgerKills(stack: ChaosStack, t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  const writers = new LedgerWriters(stack, t.retryMs);
  const faults: string[] = [];
  writers.start(20);
  const bootTimes: number[] = [];
  for (let k = 0; k < 3; k++) {
    await sleep(t.loadMs / 4);
    const victim = stack.ledgers[k % stack.ledgers.length];
    await victim.kill();
    faults.push(`SIGKILL ${victim.name}`);
    const bootAt = Date.now();
    await victim.boot();
    bootTimes.push(Date.now() - bootAt);
  }
  await sleep(Math.max(0, started + t.loadMs - Date.now()));
  await writers.stop();
  return ledgerOutcome(stack, 'ledger: process SIGKILLed mid-batch x3', writers, faults, started, t, [], {
    'restart to healthy (ms, each)': bootTimes.join(', '),
  });
}

/** 3. Redis SIGKILLed and started again (empty) under load on both services. */
export async function redisKill(stack: ChaosStack, t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  const faults: string[] = [];
  const writers = new LedgerWriters(stack, t.retryMs);
  const agent = await stack.seedControlAgent('redis', 1_000_000_000);
  let loadEnded = Infinity;
  const control = authorizeMany(stack, agent, { count: t.short ? 400 : 2000, concurrency: 10, amountCents: 100, retryUntil: () => loadEnded + t.retryMs });
  writers.start(10);
  await sleep(t.loadMs / 3);
  const before = { ledger: writers.tally.count((s) => s.startsWith('5')), control: 0 };
  await stack.redis.kill();
  const downAt = Date.now();
  const checks: Check[] = [];
  await sleep(Math.min(1000, t.downMs / 2));
  const ready = await call('GET', `${stack.ledgers[0].url}/readyz`, { timeoutMs: 5000 });
  checks.push(check('ledger /readyz reports Redis down', ready.status === 503, `answered ${ready.status}`));
  const probe = await stack.ledgerCall('POST', '/transactions', { postings: [] }, 0, { 'Idempotency-Key': `probe-redis-${Date.now()}` });
  checks.push(check('ledger answers while Redis is down (rate limits fail open)', probe.status === 422 && probe.ms <= 2000, `a bad write answered ${probe.status} in ${probe.ms} ms`));
  const controlProbe = await call('POST', `${stack.controls[0].url}/control/v1/agent/payment_intents`, {
    headers: { Authorization: `Bearer ${agent.key}` },
    body: { budget_id: agent.budgetId, amount_cents: 100, counterparty: 'acme', idempotency_key: `probe-${Date.now()}` },
  });
  checks.push(check('control authorizes while Redis is down (rate limits fail open)', controlProbe.status === 201 && controlProbe.ms <= 2000, `answered ${controlProbe.status} in ${controlProbe.ms} ms`));
  await sleep(Math.max(0, t.downMs - (Date.now() - downAt)));
  const ledger5xxDuringOutage = writers.tally.count((s) => s.startsWith('5')) - before.ledger;
  await stack.redis.boot();
  faults.push(`SIGKILL redis-server, down ${((Date.now() - downAt) / 1000).toFixed(1)} s, started empty`);
  await sleep(Math.max(0, started + t.loadMs - Date.now()));
  loadEnded = Date.now();
  await writers.stop();
  const auth = await control;
  checks.push(check('ledger writes kept succeeding during the outage', ledger5xxDuringOutage === 0, `${ledger5xxDuringOutage} 5xx answers while Redis was down`));
  const controlBad = auth.tally.count((s) => s !== '201');
  checks.push(check('control authorizations all allowed (no 5xx)', controlBad === 0, `${auth.tally.sent} sent: ${auth.tally}`));
  const result = await ledgerOutcome(stack, 'Redis killed and restarted under load (ledger + control)', writers, faults, started, t, checks, { 'control authorizations': auth.tally.toString() });
  result.tally = merge(writers.tally, auth.tally);
  return result;
}

function merge(a: Tally, b: Tally): Tally {
  const t = new Tally();
  t.sent = a.sent + b.sent;
  for (const source of [a, b]) for (const [s, c] of source.counts) t.counts.set(s, (t.counts.get(s) ?? 0) + c);
  return t;
}

/** 4. Webhook workers SIGKILLed three times while deliveries are in flight (the receiver answers slowly). */
export async function workerKills(stack: ChaosStack, t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  stack.receiver.respondWith(async () => {
    await sleep(100 + Math.random() * 300);
    return 200;
  });
  const writers = new LedgerWriters(stack, t.retryMs);
  const faults: string[] = [];
  writers.start(5);
  for (let k = 0; k < 3; k++) {
    await sleep(t.loadMs / 4);
    const victim = stack.workers[k % stack.workers.length];
    await victim.kill();
    faults.push(`SIGKILL ${victim.name}`);
    await sleep(300);
    await victim.boot();
  }
  await sleep(Math.max(0, started + t.loadMs - Date.now()));
  await writers.stop();
  const result = await ledgerOutcome(stack, 'webhook workers SIGKILLed mid-delivery x3', writers, faults, started, t, [], {});
  stack.receiver.respondWith(() => 200);
  return result;
}
