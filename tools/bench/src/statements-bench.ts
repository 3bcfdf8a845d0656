import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAppProcess } from '@bursar/testing';
import { toolSettings } from '@bursar/dev-infra';
import { BENCH_SERVERS, ledgerBenchClient, report, runScript, scratchDatabase, BENCH_SERVICE_NODE, ledgerBenchEnv } from './bench-kit';

/*
 * `pnpm bench:statements`: the real ledger service on a scratch database imports one camt.053 file
 * of BENCH_ENTRIES entries (default 100000, about 48 MB) through POST /sources/{id}/statements, then
 * imports it again (every entry replayed). entries/s is entries over the POST's wall time; the
 * service's peak RSS comes from tools/bench/src/peak-rss.preload.js. Target: >= 20,000 entries/s,
 * peak RSS < 300 MB.
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

/** A camt.053.001.08 file: one statement, credits and debits with references, parties and remittance text. */
function camt053(count: number): Buffer {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>',
    '<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-04T06:00:00Z</CreDtTm></GrpHdr><Stmt><Id>S</Id><Acct><Id><Othr><Id>BENCH-1</Id></Othr></Id><Ccy>USD</Ccy></Acct>',
  ];
  for (let i = 0; i < count; i++) {
    const amount = `${(i % 9999) + 1}.${String(i % 100).padStart(2, '0')}`;
    parts.push(
      `<Ntry><Amt Ccy="USD">${amount}</Amt><CdtDbtInd>${i % 3 ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>2026-11-02</Dt></BookgDt><ValDt><Dt>2026-11-02</Dt></ValDt><AcctSvcrRef>BENCH-${i}</AcctSvcrRef>` +
        `<BkTxCd><Domn><Cd>PMNT</Cd></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i}</EndToEndId></Refs>` +
        `<RltdPties><Dbtr><Pty><Nm>Müller und Söhne GmbH, customer ${i}</Nm></Pty></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd>Invoice ${i} of 2026-11-01</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    );
  }
  parts.push('</Stmt></BkToCstmrStmt></Document>');
  return Buffer.from(parts.join(''), 'utf8');
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
    const first = await importFile(baseUrl, token, source.id, file);
    const again = await importFile(baseUrl, token, source.id, file);
    report(`statements: one camt.053 file of ${entries} entries (${(file.length / 1e6).toFixed(1)} MB)`, {
      'first import entries/s': entries / first.seconds,
      'first import seconds': first.seconds,
      created: first.data.created_count,
      're-import entries/s': entries / again.seconds,
      replayed: again.data.replayed_count,
      'service peak RSS MB': Number(readFileSync(peakRssFile, 'utf8')) / 1024,
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
