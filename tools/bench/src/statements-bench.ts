import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, report, runScript, scratchDatabase, BENCH_SERVICE_NODE, ledgerBenchEnv, sleep } from './bench-kit';

/*
 * `pnpm bench:statements`: the real ledger service on a scratch database imports one camt.053 file
 * of BENCH_ENTRIES entries (default 100000, about 48 MB) through POST /sources/{id}/statements, then
 * imports it again (every entry replayed). entries/s is entries over the POST's wall time; the
 * service's peak RSS comes from tools/bench/src/peak-rss.preload.js. The in-run anchor is a bare
 * INSERT of the same rows into a scratch copy of the table (anchorInsert); the report gives the
 * import's rate as a fraction of it. Target: >= 20,000 entries/s, peak RSS < 300 MB.
 */

const settings = toolSettings({
  command: 'pnpm bench:statements',
  summary: 'The real ledger service imports one large camt.053 statement file over HTTP, twice: entries/s and peak RSS.',
  env: {
    BENCH_ENTRIES: { help: 'entries in the file (5000 is a CI-sized run)', default: '100000' },
    ...BENCH_SERVICE_NODE,
    ...BENCH_SERVERS,
  },
});
const entries = Number(settings.BENCH_ENTRIES);
const peakRssFile = path.join(tmpdir(), `statements-bench-rss-${process.pid}`);

/** Entry i of the file, as the camt.053 carries it. */
function benchEntry(i: number) {
  return {
    reference: `BENCH-${i}`,
    amount: `${(i % 9999) + 1}.${String(i % 100).padStart(2, '0')}`,
    debit: i % 3 === 0,
    endToEnd: `E2E-${i}`,
    party: `Müller und Söhne GmbH, customer ${i}`,
    remittance: `Invoice ${i} of 2026-11-01`,
  };
}

/** A camt.053.001.08 file: one statement, credits and debits with references, parties and remittance text. */
function camt053(count: number): Buffer {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>',
    '<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-04T06:00:00Z</CreDtTm></GrpHdr><Stmt><Id>S</Id><Acct><Id><Othr><Id>BENCH-1</Id></Othr></Id><Ccy>USD</Ccy></Acct>',
  ];
  for (let i = 0; i < count; i++) {
    const e = benchEntry(i);
    parts.push(
      `<Ntry><Amt Ccy="USD">${e.amount}</Amt><CdtDbtInd>${e.debit ? 'DBIT' : 'CRDT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>2026-11-02</Dt></BookgDt><ValDt><Dt>2026-11-02</Dt></ValDt><AcctSvcrRef>${e.reference}</AcctSvcrRef>` +
        `<BkTxCd><Domn><Cd>PMNT</Cd></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>${e.endToEnd}</EndToEndId></Refs>` +
        `<RltdPties><Dbtr><Pty><Nm>${e.party}</Nm></Pty></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd>${e.remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    );
  }
  parts.push('</Stmt></BkToCstmrStmt></Document>');
  return Buffer.from(parts.join(''), 'utf8');
}

/** Rows written per statement by the anchor, as the import batches them. */
const ANCHOR_BATCH = 5000;

/**
 * The in-run reference: the same rows, already in hand, inserted by a bare client into a scratch
 * copy of external_transactions (same columns, defaults and indexes; like the table, no foreign keys)
 * on the same database, one multi-row INSERT per 5,000 rows in one transaction. No
 * HTTP, parsing or checks: the floor an import's writes stand on. Answers seconds.
 */
async function anchorInsert(databaseUrl: string, sourceId: string, count: number): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: [{ ledger_id: ledgerId }] } = await client.query('SELECT ledger_id FROM reconciliation_sources WHERE id = $1', [sourceId]);
    await client.query(`CREATE TABLE bench_anchor (LIKE external_transactions INCLUDING DEFAULTS INCLUDING INDEXES)`);
    const started = Date.now();
    await client.query('BEGIN');
    for (let start = 0; start < count; start += ANCHOR_BATCH) {
      const rows = Array.from({ length: Math.min(ANCHOR_BATCH, count - start) }, (_, k) => benchEntry(start + k));
      await client.query(
        `INSERT INTO bench_anchor (ledger_id, source_id, external_id, amount, currency, occurred_at, reference_rail, reference_kind, reference_value, raw)
         SELECT $1, $2, t.external_id, t.amount, 'USD', '2026-11-02', 'iso20022', 'end_to_end_id', t.reference_value, t.raw
         FROM unnest($3::text[], $4::numeric[], $5::text[], $6::jsonb[]) AS t(external_id, amount, reference_value, raw)
         ON CONFLICT (source_id, external_id) DO NOTHING`,
        [
          ledgerId,
          sourceId,
          rows.map((e) => e.reference),
          rows.map((e) => `${e.debit ? '-' : ''}${e.amount.replace('.', '')}`),
          rows.map((e) => e.endToEnd),
          rows.map((e) => JSON.stringify({ counterparty: e.party, remittance: e.remittance, value_date: '2026-11-02', account_reference: 'BENCH-1' })),
        ],
      );
    }
    await client.query('COMMIT');
    return (Date.now() - started) / 1000;
  } finally {
    await client.end();
  }
}

async function importFile(baseUrl: string, token: string, sourceId: string, file: Buffer) {
  const started = Date.now();
  const res = await fetch(`${baseUrl}/ledger/v1/sources/${sourceId}/statements`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/xml' },
    body: file,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`import: ${res.status} ${text.slice(0, 500)}`);
  return { data: JSON.parse(text).data, seconds: (Date.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const db = await scratchDatabase('statements');
  const env = {
    ...ledgerBenchEnv(db.url),
    WEBHOOK_QUEUE_PREFIX: `bench-statements-${process.pid}`,
  };
  let app: Awaited<ReturnType<typeof startAppProcess>> | null = null;
  try {
    await runScript('apps/ledger/src/migrate.ts', [], env);
    app = await startAppProcess('apps/ledger/src/main.ts', 'LEDGER_PORT', {
      ...env,
      BENCH_PEAK_RSS_FILE: peakRssFile,
      NODE_OPTIONS: `--require ${path.join(__dirname, 'peak-rss.preload.js')} ${settings.BENCH_NODE_OPTIONS ?? ''}`,
    });
    const baseUrl = `http://127.0.0.1:${app.port}`;
    const { token } = await ledgerBenchClient(env, baseUrl);
    const sourceRes = await fetch(`${baseUrl}/ledger/v1/sources`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench-bank' }),
    });
    const source = ((await sourceRes.json()) as { data: { id: string } }).data;
    const file = camt053(entries);
    // The service's own footprint before any import (the preload writes every 200 ms), which the peak is read against.
    await sleep(400);
    const bootRssMb = Number(readFileSync(peakRssFile, 'utf8')) / 1024;
    const first = await importFile(baseUrl, token, source.id, file);
    const again = await importFile(baseUrl, token, source.id, file);
    const anchorSeconds = await anchorInsert(db.url, source.id, entries);
    report(`statements: one camt.053 file of ${entries} entries (${(file.length / 1e6).toFixed(1)} MB)`, {
      'first import entries/s': entries / first.seconds,
      'first import seconds': first.seconds,
      created: first.data.created_count,
      're-import entries/s': entries / again.seconds,
      replayed: again.data.replayed_count,
      'anchor: bare INSERT of the rows entries/s': entries / anchorSeconds,
      'first import / anchor': (anchorSeconds / first.seconds).toFixed(2),
      'service peak RSS MB': Number(readFileSync(peakRssFile, 'utf8')) / 1024,
      'service peak RSS before the imports MB': bootRssMb,
      check: first.data.created_count === entries && again.data.replayed_count === entries ? 'ok' : 'MISMATCH',
    });
  } finally {
    await app?.stop();
    await db.drop();
    rmSync(peakRssFile, { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
