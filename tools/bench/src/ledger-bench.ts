import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { booksProblems, startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, overReplicas, percentile, report, runScript, scratchDatabase, sleep, BENCH_SERVICE_NODE, BENCH_CPU_PROFILE, ledgerBenchEnv } from './bench-kit';
import { Anchor, bareAnchor, CallWal, pgledgerAnchor, walOfCalls } from './ledger-anchors';

/*
 * `pnpm bench:ledger`: the real ledger service on a scratch database (50 spread and 2 hot USD
 * accounts), after a baseline of a route that touches no database, loaded with
 *   - two-posting transfers (each with its own Idempotency-Key) by autocannon: 1, 4 and 20
 *     connections over the 50 accounts, then 20 connections over the 2 hot ones;
 *   - bulk: POST /transactions/bulk with 1,000 such transfers per request (non-atomic from 1 and 4
 *     connections, atomic from 1), each connection sending its next request when the last answered;
 *   - reversals: POST /transactions/{id}/reverse at 1 and 4 connections, each reversing a distinct
 *     transfer made beforehand (in bulk, between slices, outside the clock).
 *   - sealing: single transfers at 4 and 20 connections with the books log's sealer working and held
 *     off, in alternating slices (the bench holds the sealer's advisory lock to hold it off, and lets
 *     it catch up, off the clock, before the next slice); seal lag (sealed_at - committed_at) of the
 *     sealing slices' transactions, p50 and p99.
 * BENCH_SECONDS (default 10) per scenario; BENCH_ONLY (comma list of baseline, 1, 4, 20, hot,
 * bulk, reversal, seal, or one run of those: bulk:1, bulk:4, bulk:atomic, reversal:1, reversal:4, seal:4, seal:20; default all);
 * BENCH_REPLICAS (default 1): service processes on one database, each scenario's clients shared out
 * between them (latencies are the worst replica's); replica r > 0 writes its profile to <file>.r. Each scenario also reports the cost of an operation that
 * does not depend on how loaded the machine is: the service's database round trips and the
 * database transactions (commits, read-only ones included) and the service's CPU time per operation, and how busy the load generator kept this process (to show it is not
 * the bottleneck). BENCH_CPU_PROF=<file.cpuprofile> writes a CPU profile of the service there.
 * Beside each scenario runs its in-database twin, in alternating slices (BENCH_SLICES,
 * default 3, so both see the same machine load): as many `pg` connections as clients,
 * each calling the service's own write function (ledger_write_batch) with what the service sends
 * for the operation (the same accounts, ids, events and Idempotency-Key rows of the sizes the
 * service writes), no HTTP and no service: a transfer per call; 1,000 transfers per call; for a
 * reversal the service's own statements in one database transaction (lock the original, read its
 * postings, one call with the reversal). The ratio HTTP / in-database of the same run is the headline figure.
 * Beside the single transfers run two anchors written by pgbench (ledger-anchors.ts), in the same
 * slices: the bare reference (bench_bare_transfer: one transaction, two postings, two balance rows
 * on the same tables) and pgledger, a public pure-SQL ledger, on BENCH_PGLEDGER_DATABASE_URL (a
 * database the operator loaded it into; unset, its rows are skipped). Then the WAL one transfer
 * writes through each of the three functions, from EXPLAIN (ANALYZE, WAL) of sequential calls (the
 * calling session's own WAL, whatever else the server does).
 * Afterwards the books are checked: every accepted operation wrote exactly its transactions,
 * every currency nets to zero and every balance row equals the sum of its postings.
 */

const settings = toolSettings({
  command: 'pnpm bench:ledger',
  summary:
    'The real ledger service on a scratch database, loaded with two-posting transfers (one per request by autocannon,\n' +
    'then 1,000 per bulk request) and reversals of distinct transfers, each scenario beside its in-database twin;\n' +
    'the books are checked afterwards.',
  env: {
    BENCH_SECONDS: { help: 'seconds per scenario', default: '10' },
    BENCH_SLICES: { help: 'alternating HTTP and in-database slices per scenario', default: '3' },
    BENCH_ONLY: {
      help: 'comma list of baseline, 1, 4, 20, hot, bulk (bulk:1, bulk:4, bulk:atomic), reversal (reversal:1, reversal:4), seal (seal:4, seal:20) (default all)',
    },
    BENCH_PGLEDGER_DATABASE_URL: { help: 'a database with pgledger loaded (docs/benchmarks.md): the pgledger anchor runs there; unset, it is skipped' },
    BENCH_REPLICAS: { help: 'service processes on one database, each scenario\'s clients shared out between them', default: '1' },
    ...BENCH_SERVICE_NODE,
    ...BENCH_CPU_PROFILE,
    ...BENCH_SERVERS,
  },
});
const seconds = Number(settings.BENCH_SECONDS);
/** A scenario alternates HTTP and in-database slices, so both see the same machine load (others' runs come and go). */
const slices = Math.max(1, Number(settings.BENCH_SLICES));
const only = settings.BENCH_ONLY?.split(',');
/** A run is named by its key (`bulk:4`) or its family (`bulk`). */
const runs = (key: string) => !only || only.includes(key) || only.includes(key.split(':')[0]);
const replicas = Number(settings.BENCH_REPLICAS);
const roundTripsFile = (replica: number) => path.join(tmpdir(), `ledger-bench-round-trips-${process.pid}-${replica}`);
/** Transfers per bulk request and per in-database bulk call. */
const BULK_ITEMS = 1000;

/** Counters that make a run's per-operation cost visible: service round trips, database commits, bench CPU. */
async function costCounters(pg: Client) {
  // Postgres publishes its statistics up to a second late.
  await sleep(1100);
  const [{ commits }] = (
    await pg.query(`SELECT (xact_commit + xact_rollback)::int AS commits FROM pg_stat_database WHERE datname = current_database()`)
  ).rows;
  let roundTrips = 0;
  let serviceCpuMicros = 0;
  for (let r = 0; r < replicas; r++) {
    try {
      const [trips, cpu] = readFileSync(roundTripsFile(r), 'utf8').split(' ').map(Number);
      roundTrips += trips;
      serviceCpuMicros += cpu;
    } catch {
      // A service that has not written its first count yet.
      roundTrips = serviceCpuMicros = NaN;
    }
  }
  return { commits: Number(commits), roundTrips, serviceCpuMicros, cpu: process.cpuUsage(), at: Date.now() };
}

type Costs = Awaited<ReturnType<typeof costCounters>>;

/** What the counters moved by between two readings; slices add up. */
interface CostDelta {
  roundTrips: number;
  commits: number;
  serviceCpuMicros: number;
  benchCpuMicros: number;
  ms: number;
}

const NO_COST: CostDelta = { roundTrips: 0, commits: 0, serviceCpuMicros: 0, benchCpuMicros: 0, ms: 0 };

function costBetween(before: Costs, after: Costs, sum: CostDelta): CostDelta {
  return {
    roundTrips: sum.roundTrips + after.roundTrips - before.roundTrips,
    commits: sum.commits + after.commits - before.commits,
    serviceCpuMicros: sum.serviceCpuMicros + after.serviceCpuMicros - before.serviceCpuMicros,
    benchCpuMicros: sum.benchCpuMicros + after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system,
    ms: sum.ms + after.at - before.at,
  };
}

function perOperation(cost: CostDelta, operations: number, operation: string) {
  return {
    [`db round trips/${operation}`]: cost.roundTrips / operations,
    [`db transactions/${operation}`]: cost.commits / operations,
    // CPU time per operation is what bounds a single Node process, whatever else the machine runs.
    [`service CPU ms/${operation}`]: cost.serviceCpuMicros / 1000 / operations,
    'bench process CPU %': (100 * cost.benchCpuMicros) / 1000 / cost.ms,
  };
}

/** One HTTP slice: accepted operations, the transactions they wrote, and those a stop may have cut off unseen. */
interface HttpSlice {
  ok: number;
  written: number;
  /** Transactions that requests still in flight when the clock stopped may write, unseen. */
  cutOff: number;
  duration: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One in-database slice: accepted calls, the transactions they wrote, and the latency of each call. */
interface DbSlice {
  ok: number;
  written: number;
  refused: number;
  duration: number;
  latencies: number[];
}

interface Scenario {
  /** Its BENCH_ONLY name. */
  key: string;
  name: string;
  /** Report titles of the two sides. */
  title: string;
  twinTitle: string;
  /** What one HTTP request and one in-database operation are called in rates and costs. */
  operation: string;
  twinOperation: string;
  /** Transactions one operation writes. */
  items: number;
  http(duration: number): Promise<HttpSlice>;
  inDatabase(duration: number): Promise<DbSlice>;
  /** Runs before each slice, off the clock. */
  prepare?(): Promise<void>;
  /** Told each side's rate after its slice. */
  observe?(operationsPerSecond: number): void;
  /** Single transfers only: the anchors' clients and accounts, run in the same slices. */
  anchored?: { clients: number; accounts: 'spread' | 'hot' };
}

/** The bench's client of one service replica. */
async function post(baseUrl: string, token: string, route: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(key && { 'Idempotency-Key': key }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function createAccounts(baseUrl: string, token: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await post(baseUrl, token, '/ledger/v1/accounts', { id, name: id, type: 'asset', currency: 'USD' });
    if (res.status !== 201) throw new Error(`account ${id}: ${res.status} ${await res.text()}`);
  }
}

/**
 * Two distinct accounts at random: transfers in flight share an account only as often as chance
 * has it over 50 accounts (consecutive picks would make neighbours collide), always over 2.
 */
function pickPair(accounts: string[]): [from: string, to: string] {
  const i = Math.floor(Math.random() * accounts.length);
  return [accounts[i], accounts[(i + 1 + Math.floor(Math.random() * (accounts.length - 1))) % accounts.length]];
}

/** A transfer's two postings as the API takes them. */
function transferPostings(from: string, to: string) {
  return [
    { account: to, amount: '125', currency: 'USD', direction: 'debit' },
    { account: from, amount: '125', currency: 'USD', direction: 'credit' },
  ];
}

/** A bulk request body: BULK_ITEMS transfers over `accounts`, keyed `<prefix>-<i>`. */
function bulkBody(prefix: string, accounts: string[], atomic: boolean): string {
  const transactions = Array.from({ length: BULK_ITEMS }, (_, i) => {
    const [from, to] = pickPair(accounts);
    return { idempotency_key: `${prefix}-${i}`, postings: transferPostings(from, to) };
  });
  return JSON.stringify({ atomic, transactions });
}

/** What autocannon sends next: a route, its body and its Idempotency-Key. */
interface LoadRequest {
  route: string;
  body: string;
  key: string;
}

/** Transfers over `accounts`, each with its own Idempotency-Key. */
function transferRequests(accounts: string[]): () => LoadRequest {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return () => {
    const [from, to] = pickPair(accounts);
    return { route: '/ledger/v1/transactions', key: `${prefix}-${(n += 1)}`, body: JSON.stringify({ postings: transferPostings(from, to) }) };
  };
}

function runOne(baseUrl: string, token: string, connections: number, duration: number, next: () => LoadRequest): Promise<autocannon.Result> {
  return autocannon({
    url: baseUrl,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const { route, body, key } = next();
          return {
            ...req,
            path: route,
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
            body,
          };
        },
      },
    ],
  });
}

/** Shares `connections` out between the replicas. */
function shareOut(baseUrls: string[], connections: number) {
  return baseUrls
    .map((url, r) => ({ url, connections: Math.floor(connections / baseUrls.length) + (r < connections % baseUrls.length ? 1 : 0) }))
    .filter((share) => share.connections > 0);
}

/**
 * autocannon against every replica at once, its connections shared out between them; counts are
 * summed and latencies are the worst replica's. Each 2xx wrote one transaction.
 */
async function run(baseUrls: string[], token: string, connections: number, duration: number, next: () => LoadRequest): Promise<HttpSlice> {
  const results = await Promise.all(shareOut(baseUrls, connections).map((share) => runOne(share.url, token, share.connections, duration, next)));
  const { sum, worst } = overReplicas(results);
  const ok = sum((r) => r['2xx']);
  return {
    ok,
    written: ok,
    cutOff: connections,
    duration: worst((r) => r.duration),
    p50: worst((r) => r.latency.p50),
    p99: worst((r) => r.latency.p99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

/** Result of one bulk item, as far as the bench reads it. */
interface BulkResult {
  status: 'created' | 'replayed' | 'error';
  transaction?: { id: string };
}

/** The ids of the transactions a bulk request created; throws unless it answered 201 or 207. */
async function createdBy(res: Response): Promise<string[]> {
  if (res.status !== 201 && res.status !== 207) throw new Error(`bulk: ${res.status} ${await res.text()}`);
  const { data } = (await res.json()) as { data: { results: BulkResult[] } };
  return data.results.flatMap((r) => (r.status === 'created' && r.transaction ? [r.transaction.id] : []));
}

/**
 * Bulk requests from `connections` clients, each sending its next when the last one answered,
 * until the clock stops; the last ones are waited for, so every written transaction is counted
 * (autocannon would cut up to 1,000 per connection off unseen). Latency: request sent to whole
 * answer read.
 */
async function runBulk(baseUrls: string[], token: string, connections: number, duration: number, accounts: string[], atomic: boolean): Promise<HttpSlice> {
  const prefix = randomBytes(4).toString('hex');
  const latencies: number[] = [];
  let n = 0;
  const counts = { ok: 0, written: 0, non2xx: 0, errors: 0 };
  const started = Date.now();
  const deadline = started + duration * 1000;
  const client = async (baseUrl: string) => {
    while (Date.now() < deadline) {
      const body = bulkBody(`${prefix}-${(n += 1)}`, accounts, atomic);
      const at = performance.now();
      try {
        const res = await post(baseUrl, token, '/ledger/v1/transactions/bulk', body);
        if (res.status === 207) {
          // A partial success is read whole to count what it wrote; it is not an accepted request.
          counts.written += (await createdBy(res)).length;
          counts.non2xx += 1;
        } else {
          await res.arrayBuffer();
          if (res.status === 201) Object.assign(counts, { ok: counts.ok + 1, written: counts.written + BULK_ITEMS });
          else counts.non2xx += 1;
        }
        latencies.push(performance.now() - at);
      } catch {
        counts.errors += 1;
      }
    }
  };
  await Promise.all(shareOut(baseUrls, connections).flatMap((share) => Array.from({ length: share.connections }, () => client(share.url))));
  return {
    ...counts,
    cutOff: 0,
    duration: (Date.now() - started) / 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** An Idempotency-Key row the service stored: what an in-database twin stores beside its write. */
interface StoredKey {
  client: string;
  route: string;
  fingerprint: string;
  sealedBody: string;
}

/** What an in-database write carries besides its rows, copied from ones the service wrote: event data and stored answers. */
interface WriteTemplate {
  organizationId: string;
  ledgerId: string;
  /** transaction.created's data, as JSON. */
  createdEvent: string;
  transferKey: StoredKey;
}

/** The latest `type` event's data, as JSON. */
async function eventData(pg: Client, type: string): Promise<string> {
  const [event] = (await pg.query(`SELECT data::text AS data FROM events WHERE type = $1 ORDER BY seq DESC LIMIT 1`, [type])).rows;
  return event.data;
}

/** The latest completed key of a route matching `route` (a LIKE pattern). */
async function storedKey(pg: Client, route: string): Promise<StoredKey> {
  const [key] = (
    await pg.query(
      `SELECT client_id, route, fingerprint, response_body FROM idempotency_keys WHERE state = 'completed' AND route LIKE $1 ORDER BY created_at DESC LIMIT 1`,
      [route],
    )
  ).rows;
  return { client: key.client_id, route: key.route, fingerprint: key.fingerprint, sealedBody: key.response_body };
}

async function writeTemplate(pg: Client, organizationId: string, ledgerId: string): Promise<WriteTemplate> {
  return { organizationId, ledgerId, createdEvent: await eventData(pg, 'transaction.created'), transferKey: await storedKey(pg, 'POST %/transactions') };
}

const WRITE_BATCH = { name: 'bench_write_batch', text: 'SELECT ledger_write_batch($1::jsonb) AS results' };
const reserveIds = (count: number) => ({
  name: `bench_reserve_ids_${count}`,
  text: `SELECT ARRAY(SELECT nextval(pg_get_serial_sequence('postings', 'id'))::text FROM generate_series(1, ${count})) AS ids`,
});

/** A call's head, as the service writes it: `accounts` are the ones its items name. */
function batchHead(template: WriteTemplate, accounts: string[], atomic = false) {
  const now = Date.now();
  return {
    ledger: template.ledgerId,
    organization: template.organizationId,
    mode: 'test',
    stale_before: new Date(now - 60_000),
    expired_before: null,
    accounts: [...new Set(accounts)],
    dry_run: false,
    atomic,
  };
}

/** A call's JSON from its head and its items, each already JSON (as the service's writeBatchJson). */
function batchJson(head: object, items: string[]): string {
  return `${JSON.stringify(head).slice(0, -1)},"items":[${items.join(',')}]}`;
}

/** A BatchItem's JSON with `events` ({ type, resource_id } and data already JSON) added: event data is serialized once per run. */
function withEvents(item: object, events: { type: string; resourceId: string; data: string }[]): string {
  const list = events.map((e) => `{"type":${JSON.stringify(e.type)},"resource_id":${JSON.stringify(e.resourceId)},"data":${e.data}}`);
  return `${JSON.stringify(item).slice(0, -1)},"events":[${list.join(',')}]}`;
}

/** The item of a new transaction with `postings`, as the service's itemOf writes it. */
function newTransaction(
  id: string,
  key: string,
  postings: { id: string; account: string; direction: string }[],
  idem: object | null,
  extra: { kind: string; reverses: string | null; value_date: Date; voids?: string[] } = { kind: 'standard', reverses: null, value_date: new Date() },
) {
  const now = new Date();
  return {
    id,
    key,
    kind: extra.kind,
    reverses: extra.reverses,
    refund_amount: null,
    refund_currency: null,
    metadata: {},
    value_date: extra.value_date,
    created_at: now,
    postings: postings.map((p) => ({ id: p.id, account: p.account, amount: '125', currency: 'USD', direction: p.direction, pending: false, tags: {} })),
    refs: [],
    conditions: [],
    ...(extra.voids && { voids: extra.voids }),
    trace_context: null,
    idem,
    touched: false,
  };
}

/** The stored key a twin write carries: `key` completed with the answer the service sealed for its route. */
function storedKeyItem(template: WriteTemplate, stored: StoredKey, key: string) {
  return {
    organization: template.organizationId,
    mode: 'test',
    client: stored.client,
    route: stored.route,
    key,
    fingerprint: stored.fingerprint,
    status: 201,
    body: stored.sealedBody,
  };
}

/** Posting ids drawn from the sequence `block` at a time, as the service's pool does. */
class IdSource {
  private ids: string[] = [];
  constructor(
    private readonly db: Client,
    private readonly block = 256,
  ) {}

  async take(count: number): Promise<string[]> {
    if (this.ids.length < count) this.ids.push(...(await this.db.query({ ...reserveIds(Math.max(this.block, count)), values: [] })).rows[0].ids);
    return this.ids.splice(0, count);
  }
}

/**
 * `connections` pg sessions running `operation` (it reports the transactions it wrote, or null
 * when refused) until the clock stops; `operation` times what it calls latency.
 */
async function inDatabase(
  url: string,
  connections: number,
  duration: number,
  operation: (db: Client, ids: IdSource, latencies: number[]) => Promise<number | null>,
): Promise<DbSlice> {
  const latencies: number[] = [];
  const totals = { ok: 0, written: 0, refused: 0 };
  const started = Date.now();
  const deadline = started + duration * 1000;
  const session = async () => {
    const db = new Client({ connectionString: url });
    await db.connect();
    const ids = new IdSource(db);
    try {
      while (Date.now() < deadline) {
        const written = await operation(db, ids, latencies);
        if (written === null) totals.refused += 1;
        else Object.assign(totals, { ok: totals.ok + 1, written: totals.written + written });
      }
    } finally {
      await db.end();
    }
  };
  await Promise.all(Array.from({ length: connections }, session));
  return { ...totals, duration: (Date.now() - started) / 1000, latencies };
}

/** Times one ledger_write_batch call; its results. */
async function writeBatch(db: Client, json: string, latencies: number[]): Promise<{ ok?: boolean }[]> {
  const at = performance.now();
  const { rows } = await db.query({ ...WRITE_BATCH, values: [json] });
  latencies.push(performance.now() - at);
  return rows[0].results;
}

/** What every scenario needs: the service, its client and database, the twins' template. */
interface Bench {
  baseUrls: string[];
  token: string;
  dbUrl: string;
  template: WriteTemplate;
}

/** One transfer's ledger_write_batch call as the service sends it: its Idempotency-Key row and event included. */
async function transferCall(template: WriteTemplate, ids: IdSource, from: string, to: string, itemKey: string): Promise<string> {
  const id = randomUUID();
  const [debit, credit] = await ids.take(2);
  const postings = [
    { id: debit, account: to, direction: 'debit' },
    { id: credit, account: from, direction: 'credit' },
  ];
  const item = withEvents(newTransaction(id, itemKey, postings, storedKeyItem(template, template.transferKey, itemKey)), [
    { type: 'transaction.created', resourceId: id, data: template.createdEvent },
  ]);
  return batchJson(batchHead(template, [from, to]), [item]);
}

/** Transfers, one per request, beside one per ledger_write_batch call (with its Idempotency-Key row and event). */
function transferScenario(bench: Bench, key: string, name: string, connections: number, accounts: string[], list: 'spread' | 'hot'): Scenario {
  const { template } = bench;
  return {
    key,
    anchored: { clients: connections, accounts: list },
    name,
    title: `ledger transfers: ${name}`,
    twinTitle: `in-database: ${name}, one transfer per ledger_write_batch call`,
    operation: 'transfer',
    twinOperation: 'transfer',
    items: 1,
    http: (duration) => run(bench.baseUrls, bench.token, connections, duration, transferRequests(accounts)),
    inDatabase: (duration) => {
      const prefix = randomBytes(4).toString('hex');
      let n = 0;
      return inDatabase(bench.dbUrl, connections, duration, async (db, ids, latencies) => {
        const [from, to] = pickPair(accounts);
        const [result] = await writeBatch(db, await transferCall(template, ids, from, to, `${prefix}-${(n += 1)}`), latencies);
        return result.ok ? 1 : null;
      });
    },
  };
}

/**
 * POST /transactions/bulk with BULK_ITEMS transfers, beside one ledger_write_batch call carrying
 * the same items as the service builds them (ids, posting ids from a range reserved for the call,
 * a transaction.created event each, no stored key). Latency in the database is the call alone.
 */
function bulkScenario(bench: Bench, key: string, connections: number, accounts: string[], atomic: boolean): Scenario {
  const { template } = bench;
  const name = `${connections} client${connections > 1 ? 's' : ''}, ${atomic ? 'atomic' : 'non-atomic'}, 50 accounts`;
  return {
    key,
    name: `bulk, ${name}`,
    title: `ledger bulk: ${BULK_ITEMS} transfers per request, ${name}`,
    twinTitle: `in-database: ${BULK_ITEMS} transfers per ledger_write_batch call, ${name}`,
    operation: 'request',
    twinOperation: 'call',
    items: BULK_ITEMS,
    http: (duration) => runBulk(bench.baseUrls, bench.token, connections, duration, accounts, atomic),
    inDatabase: (duration) => {
      const prefix = randomBytes(4).toString('hex');
      let n = 0;
      return inDatabase(bench.dbUrl, connections, duration, async (db, ids, latencies) => {
        const call = (n += 1);
        const postingIds = await ids.take(2 * BULK_ITEMS);
        const named: string[] = [];
        const items = Array.from({ length: BULK_ITEMS }, (_, i) => {
          const [from, to] = pickPair(accounts);
          named.push(from, to);
          const id = randomUUID();
          const postings = [
            { id: postingIds[2 * i], account: to, direction: 'debit' },
            { id: postingIds[2 * i + 1], account: from, direction: 'credit' },
          ];
          return withEvents(newTransaction(id, `${prefix}-${call}-${i}`, postings, null), [
            { type: 'transaction.created', resourceId: id, data: template.createdEvent },
          ]);
        });
        const results = await writeBatch(db, batchJson(batchHead(template, named, atomic), items), latencies);
        const written = results.filter((r) => r.ok).length;
        return written === BULK_ITEMS ? written : null;
      });
    },
  };
}

/**
 * Transfers made ahead for the reversal runs to reverse, each once: both sides take from here.
 * Made in bulk requests between slices, enough for the fastest rate seen so far.
 */
class Originals {
  private ids: string[] = [];
  /** Transactions written making them, for the books check. */
  written = 0;
  /** Reversals per second the next slice should find originals for (raised to the fastest rate seen). */
  private rate = 1500;

  constructor(
    private readonly bench: Bench,
    private readonly accounts: string[],
  ) {}

  take(): string | undefined {
    return this.ids.pop();
  }

  observe(perSecond: number): void {
    this.rate = Math.max(this.rate, perSecond);
  }

  /** Enough originals for a slice of `duration` seconds at half as fast again as the fastest rate seen. */
  async topUp(duration: number): Promise<void> {
    const need = Math.ceil(1.5 * this.rate * duration) + 100;
    while (this.ids.length < need) {
      const created = await createdBy(await post(this.bench.baseUrls[0], this.bench.token, '/ledger/v1/transactions/bulk', bulkBody(randomUUID(), this.accounts, false)));
      this.ids.push(...created);
      this.written += created.length;
    }
  }
}

/** The service's own reads of a reversal (CorrectionsService): the original locked, then its postings. */
const LOCK_ORIGINAL = `SELECT t.id, t.ledger_id AS "ledgerId", t.idempotency_key AS "idempotencyKey", t.kind, t.reverses,
  t.refund_amount::text AS "refundAmount", t.refund_currency AS "refundCurrency", t.metadata, t.value_date AS "valueDate",
  t.booking_date AS "bookingDate", t.created_at AS "createdAt", t.updated_at AS "updatedAt"
  FROM transactions t WHERE t.ledger_id = $1 AND t.id = $2 FOR UPDATE`;
const POSTINGS_OF = `SELECT p.id::text AS id, p.ledger_id AS "ledgerId", p.transaction_id AS "transactionId",
  p.account_id AS "accountId", p.amount::text AS amount, p.currency, p.direction, p.pending,
  p.committed_at AS "committedAt", p.voided_at AS "voidedAt", p.tags, p.value_date AS "valueDate",
  p.reconciled_at AS "reconciledAt", p.reconciliation_reference AS "reconciliationReference", p.created_at AS "createdAt"
  FROM postings p WHERE p.ledger_id = $1 AND p.transaction_id = ANY($2::uuid[]) ORDER BY p.id`;

/** What a reversal twin writes besides its rows: the service's two events' data and its stored answer. */
interface ReversalTemplate {
  createdEvent: string;
  reversedEvent: string;
  key: StoredKey;
}

async function reversalTemplate(pg: Client): Promise<ReversalTemplate> {
  return {
    createdEvent: await eventData(pg, 'transaction.reversal_created'),
    reversedEvent: await eventData(pg, 'transaction.reversed'),
    key: await storedKey(pg, 'POST %/reverse'),
  };
}

/**
 * POST /transactions/{id}/reverse of distinct transfers, beside its in-database twin: in one
 * database transaction, the original locked and its postings read with the service's statements,
 * then one ledger_write_batch call with the reversal (the posted legs flipped, the open pending
 * ones voided, both events and the stored answer), then COMMIT. Latency in the database is BEGIN to COMMIT.
 */
function reversalScenario(bench: Bench, key: string, connections: number, originals: Originals, reversal: ReversalTemplate): Scenario {
  const { template } = bench;
  const name = `${connections} client${connections > 1 ? 's' : ''}, distinct transfers over 50 accounts`;
  return {
    key,
    name: `reversals, ${name}`,
    title: `ledger reversals: ${name}`,
    twinTitle: `in-database: reversals, ${name}, the service's lock and read and one ledger_write_batch call per database transaction`,
    operation: 'reversal',
    twinOperation: 'reversal',
    items: 1,
    prepare: () => originals.topUp(seconds / slices),
    observe: (perSecond) => originals.observe(perSecond),
    http: (duration) => {
      const prefix = randomBytes(4).toString('hex');
      let n = 0;
      // Ran dry (not meant to happen): a made-up id, answered 404 and counted as non-2xx.
      return run(bench.baseUrls, bench.token, connections, duration, () => ({
        route: `/ledger/v1/transactions/${originals.take() ?? randomUUID()}/reverse`,
        key: `${prefix}-${(n += 1)}`,
        body: '{}',
      }));
    },
    inDatabase: (duration) => {
      const prefix = randomBytes(4).toString('hex');
      let n = 0;
      return inDatabase(bench.dbUrl, connections, duration, async (db, ids, latencies) => {
        const id = originals.take();
        if (!id) return null;
        const itemKey = `${prefix}-${(n += 1)}`;
        const at = performance.now();
        await db.query('BEGIN');
        const [original] = (await db.query({ text: LOCK_ORIGINAL, values: [template.ledgerId, id] })).rows;
        const postings: { id: string; accountId: string; direction: string; pending: boolean; voidedAt: Date | null }[] = (
          await db.query({ text: POSTINGS_OF, values: [template.ledgerId, [id]] })
        ).rows;
        const posted = postings.filter((p) => !p.pending && !p.voidedAt);
        const open = postings.filter((p) => p.pending && !p.voidedAt);
        const legIds = await ids.take(posted.length);
        const legs = posted.map((p, i) => ({ id: legIds[i], account: p.accountId, direction: p.direction === 'debit' ? 'credit' : 'debit' }));
        const reversalId = randomUUID();
        const item = withEvents(
          newTransaction(reversalId, itemKey, legs, storedKeyItem(template, reversal.key, itemKey), {
            kind: 'reversal',
            reverses: original.id,
            value_date: original.valueDate,
            voids: open.map((p) => p.id),
          }),
          [
            { type: 'transaction.reversal_created', resourceId: reversalId, data: reversal.createdEvent },
            { type: 'transaction.reversed', resourceId: original.id, data: reversal.reversedEvent },
          ],
        );
        const accounts = postings.map((p) => p.accountId);
        const { rows } = await db.query({ ...WRITE_BATCH, values: [batchJson(batchHead(template, accounts), [item])] });
        const ok = rows[0].results[0].ok === true;
        await db.query(ok ? 'COMMIT' : 'ROLLBACK');
        latencies.push(performance.now() - at);
        return ok ? 1 : null;
      });
    },
  };
}

/** Sends `count` reversals of fresh originals from 4 clients, each answered before the next: warms the path and leaves the twins' template. */
async function warmReversals(bench: Bench, originals: Originals, count: number): Promise<void> {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  const client = async () => {
    for (let id = originals.take(); id && n < count; id = originals.take()) {
      const res = await post(bench.baseUrls[0], bench.token, `/ledger/v1/transactions/${id}/reverse`, {}, `${prefix}-${(n += 1)}`);
      if (res.status !== 201) throw new Error(`reversal: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all([client(), client(), client(), client()]);
}

/** Up to `cutOff` more transactions than accepted operations wrote: requests still in flight when a clock stopped complete unseen. */
async function checkBooks(pg: Client, ledgerId: string, expected: number, cutOff: number): Promise<string> {
  const [{ count }] = (await pg.query(`SELECT count(*)::int AS count FROM transactions WHERE ledger_id = $1`, [ledgerId])).rows;
  const problems = await booksProblems(pg, ledgerId);
  const ok = count >= expected && count <= expected + cutOff && problems.length === 0;
  return `${ok ? 'ok' : 'MISMATCH'}: ${count} transactions for ${expected} written by accepted operations (+ up to ${cutOff} cut off), ${problems.length === 0 ? 'books consistent' : problems.join('; ')}`;
}

const SEALER_LOCK = `hashtextextended('bursar.log_sealer', 0)`;

/** Waits until the sealer has sealed every change of the database (the bench's is the only ledger). */
async function sealedUp(pg: Client): Promise<void> {
  for (;;) {
    const { rows } = await pg.query(`SELECT (SELECT count(*) FROM ledger_log_changes) - (SELECT count(*) FROM log_entries) AS behind`);
    if (Number(rows[0].behind) === 0) return;
    await sleep(50);
  }
}

/**
 * Transfers at `connections` with the sealer working and held off, in alternating slices; the
 * ratio of the two rates is what sealing costs a write, and the lag is how far behind it runs.
 */
async function sealingComparison(dbUrl: string, pg: Client, baseUrls: string[], token: string, accounts: string[], connections: number): Promise<{ written: number; cutOff: number }> {
  const holder = new Client({ connectionString: dbUrl });
  await holder.connect();
  const on = { ok: 0, duration: 0, p99: 0 };
  const off = { ok: 0, duration: 0, p99: 0 };
  const lags: number[] = [];
  let behindAtEnd = 0;
  try {
    for (let slice = 0; slice < slices; slice++) {
      await holder.query(`SELECT pg_advisory_lock(${SEALER_LOCK})`);
      const held = await run(baseUrls, token, connections, seconds / slices, transferRequests(accounts));
      await holder.query(`SELECT pg_advisory_unlock(${SEALER_LOCK})`);
      Object.assign(off, { ok: off.ok + held.ok, duration: off.duration + held.duration, p99: Math.max(off.p99, held.p99) });
      await sealedUp(pg);
      const from = (await pg.query(`SELECT clock_timestamp() AS at`)).rows[0].at;
      const working = await run(baseUrls, token, connections, seconds / slices, transferRequests(accounts));
      behindAtEnd = Math.max(behindAtEnd, Number((await pg.query(`SELECT (SELECT count(*) FROM ledger_log_changes) - (SELECT count(*) FROM log_entries) AS n`)).rows[0].n));
      Object.assign(on, { ok: on.ok + working.ok, duration: on.duration + working.duration, p99: Math.max(on.p99, working.p99) });
      await sealedUp(pg);
      const { rows } = await pg.query(`SELECT extract(epoch FROM sealed_at - committed_at) * 1000 AS ms FROM log_entries WHERE committed_at >= $1`, [from]);
      lags.push(...rows.map((r) => Number(r.ms)));
    }
  } finally {
    await holder.end();
  }
  const [onRate, offRate] = [on.ok / on.duration, off.ok / off.duration];
  report(`books log sealing, ${connections} clients, 50 accounts: sealer working vs held off`, {
    'transactions/s sealing': onRate,
    'transactions/s not sealing': offRate,
    'sealing / not sealing': (onRate / offRate).toFixed(3),
    'p99 ms sealing': on.p99,
    'p99 ms not sealing': off.p99,
    'seal lag p50 ms': percentile(lags, 50),
    'seal lag p99 ms': percentile(lags, 99),
    'unsealed changes at a slice end (max)': behindAtEnd,
  });
  // Each 2xx wrote one transaction; requests cut off at a slice's end may have written one unanswered.
  return { written: on.ok + off.ok, cutOff: 2 * slices * connections };
}

async function main(): Promise<void> {
  const db = await scratchDatabase('ledger');
  const env = {
    ...ledgerBenchEnv(db.url),
    // Replicas behind one address: each accepts the tokens the others issue.
    LEDGER_PUBLIC_URL: 'http://ledger.bench.invalid',
  };
  // Only the service counts its round trips (the admin scripts run beside it).
  const serviceEnv = (replica: number) => ({
    ...env,
    BENCH_ROUND_TRIPS_FILE: roundTripsFile(replica),
    NODE_OPTIONS: `--require ${path.join(__dirname, 'service-costs.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    ...(settings.BENCH_CPU_PROF && { BENCH_CPU_PROF_FILE: settings.BENCH_CPU_PROF + (replica ? `.${replica}` : '') }),
  });
  const pg = new Client({ connectionString: db.url });
  const apps: Awaited<ReturnType<typeof startAppProcess>>[] = [];
  let pgledgerBench: Awaited<ReturnType<typeof pgledgerAnchor>> | undefined;
  try {
    // Scratch databases skip fsync at commit; a ledger benchmark must pay for durability.
    await pg.connect();
    await pg.query(`ALTER DATABASE "${(await pg.query('SELECT current_database() AS name')).rows[0].name}" SET synchronous_commit = on`);
    await runScript('apps/ledger/src/migrate.ts', [], env);
    // What every new session (the service's pool included) gets; the report shows it was not relaxed.
    const session = new Client({ connectionString: db.url });
    await session.connect();
    const durability = (await session.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;
    await session.end();
    for (let r = 0; r < replicas; r++) apps.push(await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', serviceEnv(r)));
    const baseUrls = apps.map((app) => `http://127.0.0.1:${app.port}`);
    const [baseUrl] = baseUrls;
    const { token, ledgerId, organizationId } = await ledgerBenchClient(env, baseUrl);
    const spread = Array.from({ length: 50 }, (_, i) => `acct:${i}`);
    const hot = ['hot:a', 'hot:b'];
    await createAccounts(baseUrl, token, [...spread, ...hot]);
    // Warm the JIT and the connection pool before measuring (bulk and reversals too, when they run).
    await run(baseUrls, token, 4 * replicas, seconds, transferRequests(spread));
    const bench: Bench = { baseUrls, token, dbUrl: db.url, template: await writeTemplate(pg, organizationId, ledgerId) };
    const originals = new Originals(bench, spread);
    const reversals = ['reversal:1', 'reversal:4'].some(runs);
    if (reversals || ['bulk:1', 'bulk:4', 'bulk:atomic'].some(runs)) {
      for (let i = 0; i < 3; i++) await createdBy(await post(baseUrl, token, '/ledger/v1/transactions/bulk', bulkBody(randomUUID(), spread, false)));
    }
    let reversal: ReversalTemplate | undefined;
    if (reversals) {
      await originals.topUp(0);
      await warmReversals(bench, originals, 200);
      reversal = await reversalTemplate(pg);
    }
    // What the machine gives a request that touches no database, for scale.
    if (runs('baseline')) {
      const base = await autocannon({ url: `${baseUrl}/.well-known/oauth-authorization-server`, connections: 4, duration: seconds });
      report('baseline: GET /.well-known/oauth-authorization-server, 4 clients', {
        'requests/s': base.requests.average,
        'p50 ms': base.latency.p50,
        'p99 ms': base.latency.p99,
      });
    }
    // Statistics as a database in service has them. Plans the service's sessions cached while the
    // tables were nearly empty would otherwise look transaction keys up by scanning the whole ledger
    // (ledger_write_batch's used-keys read), while the twins' fresh sessions plan anew.
    await pg.query('ANALYZE');
    // Every transaction so far (warm-ups, originals made for them) is counted here; later ones by their answers.
    let succeeded = Number((await pg.query(`SELECT count(*)::int AS c FROM transactions`)).rows[0].c);
    const madeBefore = originals.written;
    let cutOff = succeeded > 0 ? 4 * replicas : 0;
    const scenarios: Scenario[] = [
      transferScenario(bench, '1', '1 client, 50 accounts', 1, spread, 'spread'),
      transferScenario(bench, '4', '4 clients, 50 accounts', 4, spread, 'spread'),
      transferScenario(bench, '20', '20 clients, 50 accounts', 20, spread, 'spread'),
      transferScenario(bench, 'hot', '20 clients, 2 hot accounts', 20, hot, 'hot'),
      bulkScenario(bench, 'bulk:1', 1, spread, false),
      bulkScenario(bench, 'bulk:4', 4, spread, false),
      bulkScenario(bench, 'bulk:atomic', 1, spread, true),
      ...(reversal ? [reversalScenario(bench, 'reversal:1', 1, originals, reversal), reversalScenario(bench, 'reversal:4', 4, originals, reversal)] : []),
    ].filter((scenario) => runs(scenario.key));
    const anchors: Anchor[] = [];
    if (scenarios.some((scenario) => scenario.anchored)) {
      anchors.push(await bareAnchor(db.url, pg, ledgerId, { spread, hot }));
      if (settings.BENCH_PGLEDGER_DATABASE_URL) anchors.push((pgledgerBench = await pgledgerAnchor(settings.BENCH_PGLEDGER_DATABASE_URL, spread.length, hot.length)));
      else report('pgledger anchor', { skipped: 'BENCH_PGLEDGER_DATABASE_URL is not set (docs/benchmarks.md says how to load pgledger)' });
    }
    const ratios: Record<string, string> = {};
    const anchorRatios: Record<string, string> = {};
    for (const scenario of scenarios) {
      const http = { ok: 0, written: 0, duration: 0, p50: [] as number[], p99: 0, non2xx: 0, errors: 0, cost: NO_COST };
      const direct = { ok: 0, written: 0, refused: 0, duration: 0, latencies: [] as number[], cpuMicros: 0 };
      const anchored = anchors.map(() => ({ ok: 0, duration: 0 }));
      for (let slice = 0; slice < slices; slice++) {
        await scenario.prepare?.();
        const before = await costCounters(pg);
        const result = await scenario.http(seconds / slices);
        http.cost = costBetween(before, await costCounters(pg), http.cost);
        Object.assign(http, {
          ok: http.ok + result.ok,
          written: http.written + result.written,
          duration: http.duration + result.duration,
          p99: Math.max(http.p99, result.p99),
          non2xx: http.non2xx + result.non2xx,
          errors: http.errors + result.errors,
        });
        http.p50.push(result.p50);
        cutOff += result.cutOff * scenario.items;
        scenario.observe?.(result.ok / result.duration);
        await scenario.prepare?.();
        const cpuBefore = process.cpuUsage();
        const inDb = await scenario.inDatabase(seconds / slices);
        const cpu = process.cpuUsage(cpuBefore);
        Object.assign(direct, {
          ok: direct.ok + inDb.ok,
          written: direct.written + inDb.written,
          refused: direct.refused + inDb.refused,
          duration: direct.duration + inDb.duration,
          cpuMicros: direct.cpuMicros + cpu.user + cpu.system,
        });
        direct.latencies.push(...inDb.latencies);
        scenario.observe?.(inDb.ok / inDb.duration);
        const { anchored: at } = scenario;
        for (const [i, anchor] of at ? anchors.entries() : []) {
          if (!at) break;
          const done = await anchor.slice(at.clients, seconds / slices, at.accounts);
          Object.assign(anchored[i], { ok: anchored[i].ok + done.ok, duration: anchored[i].duration + done.duration });
          if (anchor.onBenchLedger) {
            // A pgbench client may finish a transfer as the clock stops.
            succeeded += done.ok;
            cutOff += at.clients;
          }
        }
      }
      succeeded += http.written + direct.written;
      const httpRate = http.ok / http.duration;
      const directRate = direct.ok / direct.duration;
      const ratio = (httpRate / directRate).toFixed(2);
      const { operation, twinOperation } = scenario;
      report(`${scenario.title}${replicas > 1 ? ` [${replicas} replicas]` : ''}`, {
        [operation === 'transfer' ? 'transactions/s' : `${operation}s/s`]: httpRate,
        ...(scenario.items > 1 && { 'items/s': http.written / http.duration }),
        'p50 ms': percentile(http.p50, 50),
        'p99 ms': http.p99,
        [scenario.items > 1 ? 'not 201' : 'non2xx']: http.non2xx,
        errors: http.errors,
        ...perOperation(http.cost, http.ok, operation),
      });
      report(scenario.twinTitle, {
        [twinOperation === 'transfer' ? 'transactions/s' : `${twinOperation}s/s`]: directRate,
        ...(scenario.items > 1 && { 'items/s': direct.written / direct.duration }),
        'p50 ms': percentile(direct.latencies, 50),
        'p99 ms': percentile(direct.latencies, 99),
        refused: direct.refused,
        'bench process CPU %': (100 * direct.cpuMicros) / 1000 / (direct.duration * 1000),
        'HTTP / in-database': ratio,
      });
      // Bulk rates are a few per second: a decimal keeps them apart.
      const shown = (rate: number) => (rate < 100 ? rate.toFixed(1) : Math.round(rate));
      ratios[scenario.name] = `${ratio}x (${shown(httpRate)} / ${shown(directRate)} ${operation === 'transfer' ? 'transactions' : `${operation}s / ${twinOperation}s`} per second)`;
      const against: string[] = [];
      for (const [i, anchor] of scenario.anchored ? anchors.entries() : []) {
        const rate = anchored[i].ok / anchored[i].duration;
        report(`pgbench -M prepared: ${scenario.name}, one transfer per call of ${anchor.name}`, {
          'transactions/s': rate,
          [`HTTP / ${anchor.name}`]: (httpRate / rate).toFixed(2),
          [`in-database / ${anchor.name}`]: (directRate / rate).toFixed(2),
        });
        against.push(`${anchor.onBenchLedger ? 'bare' : 'pgledger'} ${shown(rate)}/s: HTTP ${(httpRate / rate).toFixed(2)}x, in-database ${(directRate / rate).toFixed(2)}x`);
      }
      if (against.length > 0) anchorRatios[scenario.name] = against.join('; ');
    }
    if (scenarios.length > 0) report('HTTP / in-database, same run', ratios);
    if (Object.keys(anchorRatios).length > 0) report('against the anchors, same run', anchorRatios);
    if (anchors.length > 0) {
      // Every call writes: they count in the books check like the rest.
      const calls = 200;
      const ids = new IdSource(pg);
      const prefix = randomBytes(4).toString('hex');
      const calledAhead: string[] = [];
      for (let i = 0; i < calls; i++) calledAhead.push(await transferCall(bench.template, ids, spread[(i + 1) % spread.length], spread[i % spread.length], `${prefix}-${i}`));
      const wal: Record<string, string> = {};
      const shownWal = (w: CallWal) => `${Math.round(w.bytes)} bytes in ${w.records.toFixed(1)} records (calls without full pages); ${w.fpi.toFixed(2)} full pages a call`;
      wal['ledger_write_batch'] = shownWal(await walOfCalls(pg, calls, (i) => ({ text: 'SELECT ledger_write_batch($1::jsonb)', values: [calledAhead[i]] })));
      succeeded += calls;
      for (const anchor of anchors) {
        wal[anchor.name] = shownWal(await anchor.wal(calls));
        if (anchor.onBenchLedger) succeeded += calls;
      }
      report(`WAL per transfer, ${calls} sequential calls under EXPLAIN (ANALYZE, WAL), commit record aside`, wal);
    }
    for (const connections of [4, 20]) {
      if (!runs(`seal:${connections}`)) continue;
      const sealing = await sealingComparison(db.url, pg, baseUrls, token, spread, connections);
      succeeded += sealing.written;
      cutOff += sealing.cutOff;
    }
    succeeded += originals.written - madeBefore;
    report('books after the run', { check: await checkBooks(pg, ledgerId, succeeded, cutOff), synchronous_commit: durability });
  } finally {
    await pg.end().catch(() => undefined);
    await pgledgerBench?.end().catch(() => undefined);
    await Promise.all(apps.map((app) => app.stop()));
    await db.drop();
    for (let r = 0; r < replicas; r++) rmSync(roundTripsFile(r), { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
