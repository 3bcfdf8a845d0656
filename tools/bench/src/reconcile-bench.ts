import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, report, runScript, scratchDatabase, sleep, BENCH_SERVICE_NODE, ledgerBenchEnv } from './bench-kit';

/*
 * `pnpm bench:reconcile`: the real ledger service on a scratch database reconciles BENCH_ROWS bank
 * rows (default 100000) against as many bank postings, end to end through HTTP.
 *  - The books are seeded with SQL (one transaction of two postings per bank posting, a tenth of
 *    them carrying an external reference), the way the ledger's own writes lay them out.
 *  - The rows go in through the ingest route, 1,000 per call: 85% match a posting by amount within
 *    the window, 10% only by external reference (dated days away), 5% match nothing.
 *  - One source run (POST /sources/{id}/reconciliation_runs) reconciles them; past the synchronous
 *    limit it is queued, and the bench polls until it completes. rows/s is rows over the time from
 *    the POST to completion; the service's peak RSS comes from tools/bench/src/peak-rss.preload.js.
 * Afterwards the matches are checked in the database: no posting or row matched twice, every
 * match exact and of one currency, and the counts as seeded. BENCH_ROWS=5000 is a CI-sized run.
 */

const settings = toolSettings({
  command: 'pnpm bench:reconcile',
  summary: 'The real ledger service on a scratch database reconciles bank rows against as many bank postings, end to end through\nHTTP: rows/s and peak RSS; the matches are checked afterwards.',
  env: {
    BENCH_ROWS: { help: 'bank rows (5000 is a CI-sized run)', default: '100000' },
    ...BENCH_SERVICE_NODE,
    ...BENCH_SERVERS,
  },
});
const rows = Number(settings.BENCH_ROWS);
const INGEST_BATCH = 1000;
const DAY_MS = 86_400_000;
const BASE = Date.parse('2026-01-01T00:00:00Z');
const peakRssFile = path.join(tmpdir(), `reconcile-bench-rss-${process.pid}`);

/** What row i of the bank statement is: matched by amount and date, by reference only, or by nothing. */
function kindOf(i: number): 'exact' | 'reference' | 'noise' {
  const k = i % 20;
  return k === 0 ? 'noise' : k === 1 || k === 2 ? 'reference' : 'exact';
}

/** The bank posting i: distinct amounts, money in and out, spread over 30 days. */
function posting(i: number) {
  const magnitude = 100 + ((i * 7919) % 9_999_901);
  const incoming = i % 10 < 7;
  return { amount: incoming ? magnitude : -magnitude, valueDate: BASE + Math.floor((i * 30 * DAY_MS) / rows) };
}

async function seedBooks(pg: Client, ledgerId: string): Promise<void> {
  const ids = Array.from({ length: rows }, (_, i) => i);
  await pg.query('BEGIN');
  await pg.query(`CREATE TEMP TABLE seed (i int, amount numeric, value_date timestamptz, ref text, tx uuid DEFAULT gen_random_uuid()) ON COMMIT DROP`);
  await pg.query(
    `INSERT INTO seed (i, amount, value_date, ref) SELECT * FROM unnest($1::int[], $2::numeric[], $3::timestamptz[], $4::text[])`,
    [
      ids,
      ids.map((i) => String(posting(i).amount)),
      ids.map((i) => new Date(posting(i).valueDate).toISOString()),
      ids.map((i) => (kindOf(i) === 'reference' ? `T${i}` : null)),
    ],
  );
  await pg.query(`INSERT INTO transactions (id, ledger_id, kind, value_date) SELECT tx, $1, 'standard', value_date FROM seed ORDER BY i`, [ledgerId]);
  await pg.query(
    `INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, value_date)
     SELECT $1, s.tx, l.account, abs(s.amount), 'USD', l.direction, s.value_date
     FROM seed s CROSS JOIN LATERAL (VALUES
       ('bank', CASE WHEN s.amount > 0 THEN 'debit' ELSE 'credit' END),
       (CASE WHEN s.amount > 0 THEN 'sales' ELSE 'rent' END, CASE WHEN s.amount > 0 THEN 'credit' ELSE 'debit' END)) AS l(account, direction)
     ORDER BY s.i`,
    [ledgerId],
  );
  await pg.query(
    `INSERT INTO transaction_external_refs (ledger_id, transaction_id, rail, ref_kind, value)
     SELECT $1, tx, 'ach', 'trace', ref FROM seed WHERE ref IS NOT NULL`,
    [ledgerId],
  );
  await pg.query(
    `INSERT INTO account_balances (ledger_id, account_id, currency, posted_debits, posted_credits)
     SELECT ledger_id, account_id, currency, coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0),
       coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0)
     FROM postings WHERE ledger_id = $1 GROUP BY ledger_id, account_id, currency
     ON CONFLICT (ledger_id, account_id, currency) DO UPDATE SET posted_debits = EXCLUDED.posted_debits, posted_credits = EXCLUDED.posted_credits`,
    [ledgerId],
  );
  await pg.query('COMMIT');
  await pg.query('ANALYZE postings');
}

/** Bank row i as the ingest route takes it. */
function bankRow(i: number) {
  const { amount, valueDate } = posting(i);
  const kind = kindOf(i);
  // Noise: an amount no posting has. Reference rows sit three days from their posting, outside the window.
  const offset = kind === 'reference' ? 3 * DAY_MS : (((i * 37) % 24) - 12) * 3_600_000;
  return {
    external_id: `stmt-${i}`,
    amount: kind === 'noise' ? String(amount > 0 ? amount + 10_000_000 : amount - 10_000_000) : String(amount),
    currency: 'USD',
    occurred_at: new Date(valueDate + offset).toISOString(),
    ...(kind === 'reference' && { reference_rail: 'ach', reference_kind: 'trace', reference_value: `T${i}` }),
  };
}

async function call(baseUrl: string, token: string, method: string, route: string, body?: object) {
  const res = await fetch(`${baseUrl}/ledger/v1${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
  return { json: JSON.parse(text), bytes: text.length };
}

function peakRssMb(): number {
  return Number(readFileSync(peakRssFile, 'utf8')) / 1024;
}

async function checkMatches(pg: Client, ledgerId: string, matchedCount: number): Promise<string> {
  const [twice] = (
    await pg.query(
      `SELECT (SELECT count(*) - count(DISTINCT posting_id) FROM reconciliation_match_postings WHERE ledger_id = $1 AND released_at IS NULL)::int AS postings,
              (SELECT count(*) - count(DISTINCT external_transaction_id) FROM reconciliation_matches WHERE ledger_id = $1 AND reversed_at IS NULL)::int AS rows`,
      [ledgerId],
    )
  ).rows;
  const [wrong] = (
    await pg.query(
      `SELECT count(*)::int AS n FROM reconciliation_matches m JOIN external_transactions x ON x.id = m.external_transaction_id
       WHERE m.ledger_id = $1 AND (m.residual <> 0 OR x.currency <> m.currency OR x.amount <> (
         SELECT sum(CASE p.direction WHEN 'debit' THEN p.amount ELSE -p.amount END) FROM postings p WHERE p.id = ANY (m.posting_ids)))`,
      [ledgerId],
    )
  ).rows;
  const expected = Array.from({ length: rows }, (_, i) => kindOf(i)).filter((k) => k !== 'noise').length;
  const ok = twice.postings === 0 && twice.rows === 0 && wrong.n === 0 && matchedCount === expected;
  return `${ok ? 'ok' : 'MISMATCH'}: ${matchedCount} matched of ${expected} expected, ${twice.postings} postings and ${twice.rows} rows matched twice, ${wrong.n} inexact matches`;
}

async function main(): Promise<void> {
  const db = await scratchDatabase('reconcile');
  const env = {
    ...ledgerBenchEnv(db.url),
    WEBHOOK_QUEUE_PREFIX: `bench-reconcile-${process.pid}`,
  };
  const pg = new Client({ connectionString: db.url });
  let app: Awaited<ReturnType<typeof startAppProcess>> | null = null;
  try {
    await pg.connect();
    // Scratch databases skip fsync at commit; the benchmark pays for durability like production.
    await pg.query(`ALTER DATABASE "${(await pg.query('SELECT current_database() AS name')).rows[0].name}" SET synchronous_commit = on`);
    await runScript('apps/ledger/src/migrate.ts', [], env);
    app = await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', {
      ...env,
      BENCH_PEAK_RSS_FILE: peakRssFile,
      NODE_OPTIONS: `--require ${path.join(__dirname, 'peak-rss.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    });
    const baseUrl = `http://127.0.0.1:${app.port}`;
    const { token, ledgerId } = await ledgerBenchClient(env, baseUrl);
    for (const [id, type] of [['bank', 'asset'], ['sales', 'revenue'], ['rent', 'expense']]) {
      await call(baseUrl, token, 'POST', '/accounts', { id, name: id, type, currency: 'USD' });
    }
    let started = Date.now();
    await seedBooks(pg, ledgerId);
    const seedSeconds = (Date.now() - started) / 1000;

    const source = (await call(baseUrl, token, 'POST', '/sources', { name: 'bank-feed', default_account_id: 'bank' })).json.data;
    started = Date.now();
    for (let from = 0; from < rows; from += INGEST_BATCH) {
      const items = Array.from({ length: Math.min(INGEST_BATCH, rows - from) }, (_, k) => bankRow(from + k));
      const result = (await call(baseUrl, token, 'POST', `/sources/${source.id}/external_transactions`, { items })).json.data;
      if (result.created_count !== items.length) throw new Error(`ingest created ${result.created_count} of ${items.length}`);
    }
    const ingestSeconds = (Date.now() - started) / 1000;
    const rssBeforeRun = peakRssMb();

    started = Date.now();
    const run = (await call(baseUrl, token, 'POST', `/sources/${source.id}/reconciliation_runs`, { external_reference: 'bench' })).json.data;
    let status = run.status as string;
    while (status === 'queued' || status === 'running') {
      await sleep(100);
      status = (await call(baseUrl, token, 'GET', '/reconciliation_runs?limit=1')).json.data[0].status;
    }
    const runSeconds = (Date.now() - started) / 1000;
    await sleep(300);
    const rssAfterRun = peakRssMb();
    started = Date.now();
    const whole = await call(baseUrl, token, 'GET', `/reconciliation_runs/${run.id}`);
    const readSeconds = (Date.now() - started) / 1000;
    await sleep(300);
    const done = whole.json.data;
    report(`reconciliation: ${rows} bank rows against ${rows} bank postings (${2 * rows} postings in the books)`, {
      status: `${done.status} (first answer: ${run.status})`,
      'reconcile rows/s (POST to completed)': rows / runSeconds,
      'reconcile seconds': runSeconds,
      matched: done.matched_count,
      unmatched: done.unmatched_count,
      'pass counts': JSON.stringify(done.pass_counts),
      'ingest rows/s (1,000 per call)': rows / ingestSeconds,
      'seed seconds (SQL)': seedSeconds,
      'GET whole run seconds': readSeconds,
      'GET whole run MB': whole.bytes / 1e6,
      'service peak RSS MB (after ingest)': rssBeforeRun,
      'service peak RSS MB (after run)': rssAfterRun,
      'service peak RSS MB (after reading the run)': peakRssMb(),
      check: await checkMatches(pg, ledgerId, done.matched_count),
    });
  } finally {
    await pg.end().catch(() => undefined);
    await app?.stop();
    await db.drop();
    rmSync(peakRssFile, { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
