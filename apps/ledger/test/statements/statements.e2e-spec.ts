import { randomUUID } from 'node:crypto';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { OperatorUsageError } from '@bursar/service-kit';
import { runLedgerAdmin } from '../../src/admin/ledger-admin';
import { DataSource } from 'typeorm';
import { STATEMENT_SAMPLES, STATEMENT_SAMPLE_CSV_MAPPING } from '@bursar/testing';
import { BooksApi, Json, startBooksApp } from '../books-api';
import { LedgerTestApp } from '../ledger-test-app';

const { camt053: CAMT, mt940: MT940, bai2: BAI2, ofx: OFX, csv: CSV } = STATEMENT_SAMPLES;

describe('Statement imports', () => {
  let t: LedgerTestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startBooksApp('statements');
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  async function books(): Promise<{ api: BooksApi; source: { id: string } }> {
    const api = await BooksApi.start(t);
    await api.account('bank', 'asset');
    await api.account('sales', 'revenue');
    const source = (await api.post('/sources', { name: `bank-${randomUUID()}`, default_account_id: 'bank' }).expect(201)).body.data;
    return { api, source };
  }

  function upload(api: BooksApi, sourceId: string, file: string | Buffer, query = '', key: string = randomUUID()) {
    return api
      .post(`/sources/${sourceId}/statements${query}`, undefined, key)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.isBuffer(file) ? file : Buffer.from(file, 'utf8'));
  }

  async function rows(api: BooksApi, sourceId: string): Promise<Json[]> {
    return (await api.get(`/external_transactions?source_id=${sourceId}&limit=100`).expect(200)).body.data;
  }

  it('imports a camt.053 file: entries become external transactions, a re-import creates nothing', async () => {
    const { api, source } = await books();
    const res = await upload(api, source.id, CAMT).expect(201);
    expect(res.body.data).toEqual({
      object: 'statement_import', id: expect.any(String), source_id: source.id, format: 'camt053',
      statements: [{ account_reference: 'CHK-1', currency: 'USD', from: '2026-11-01', to: '2026-11-03', opening_balance: '0', closing_balance: '20540', entry_count: 2 }],
      created_count: 2, replayed_count: 0, error_count: 0, errors: [],
      balance_checks: [{ account_reference: 'CHK-1', account_id: 'bank', statement_closing: '20540', ledger_balance: '0', difference: '20540' }],
      created_at: expect.any(String),
    });
    const landed = await rows(api, source.id);
    expect(landed.map((r) => [r.external_id, r.amount, r.currency]).sort()).toEqual([['CAMT-1', '25040', 'USD'], ['CAMT-2', '-4500', 'USD']]);
    expect(landed.find((r) => r.external_id === 'CAMT-1')).toMatchObject({
      reference_rail: 'iso20022', reference_kind: 'end_to_end_id', reference_value: 'E2E-1',
      raw: { counterparty: 'Zoë Müller', remittance: 'Grüße', value_date: '2026-11-02', account_reference: 'CHK-1' },
    });

    const again = await upload(api, source.id, gzipSync(Buffer.from(CAMT))).set('Content-Encoding', 'gzip').expect(201);
    expect(again.body.data).toMatchObject({ created_count: 0, replayed_count: 2 });
    expect(await rows(api, source.id)).toHaveLength(2);

    const list = (await api.get(`/sources/${source.id}/statements`).expect(200)).body;
    expect(list.data.map((i: Json) => i.id)).toEqual([again.body.data.id, res.body.data.id]);
    expect((await api.get(`/statements/${res.body.data.id}`).expect(200)).body.data).toEqual(res.body.data);
    await api.get(`/statements/${randomUUID()}`).expect(404);
  });

  it('imports MT940, BAI2, OFX and CSV by detection or ?format=', async () => {
    const { api, source } = await books();
    expect((await upload(api, source.id, MT940).expect(201)).body.data).toMatchObject({ format: 'mt940', created_count: 1, statements: [{ closing_balance: '1000' }] });
    expect((await upload(api, source.id, BAI2).expect(201)).body.data).toMatchObject({ format: 'bai2', created_count: 1, statements: [{ closing_balance: '1100' }] });
    expect((await upload(api, source.id, OFX, '?format=ofx').expect(201)).body.data).toMatchObject({ format: 'ofx', created_count: 1, statements: [{ closing_balance: '1200' }] });

    const refused = await upload(api, source.id, CSV).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'invalid_statement' });
    expect(refused.body.error.hint).toMatch(/Date;Amount;Ref;Text|Date, Amount/);
    const mapping = STATEMENT_SAMPLE_CSV_MAPPING;
    await api.patch(`/sources/${source.id}`, { csv_mapping: { ...mapping, date_format: 'nonsense' } }).expect(422);
    expect((await api.patch(`/sources/${source.id}`, { csv_mapping: mapping }).expect(200)).body.data.csv_mapping).toEqual(mapping);
    expect((await upload(api, source.id, CSV, '?format=csv').expect(201)).body.data).toMatchObject({ format: 'csv', created_count: 1 });

    const landed = await rows(api, source.id);
    expect(landed.map((r) => [r.external_id, r.amount]).sort()).toEqual([['BAI-1', '1100'], ['CSV-1', '1300'], ['MT-1', '1000'], ['OFX-1', '1200']]);
    expect(landed.find((r) => r.external_id === 'CSV-1')?.raw).toMatchObject({ remittance: 'Überweisung' });
  });

  it('refuses a malformed file with 422 invalid_statement naming where, and stores nothing', async () => {
    const { api, source } = await books();
    const cases: [string, RegExp][] = [
      [CAMT.replace('</Stmt>', ''), /line \d+/],
      [BAI2.replace('49,2200,3/', '49,2201,3/'), /line 5: account control total/],
      [MT940.replace(':61:2611021102C', ':61:2611021102X'), /line 5: :61:/],
      [OFX.replace('<FITID>OFX-1', ''), /FITID is missing/],
    ];
    for (const [file, hint] of cases) {
      const res = await upload(api, source.id, file).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_statement' });
      expect(res.body.error.hint).toMatch(hint);
    }
    await upload(api, source.id, CAMT, '?format=pdf').expect(422);
    // Over 50 MB, sent as is or inflating from gzip, is refused with an answer (not a dropped connection).
    const tooBig = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    expect((await upload(api, source.id, tooBig).expect(422)).body.error).toMatchObject({ code: 'invalid_request', param: 'body' });
    expect((await upload(api, source.id, gzipSync(tooBig)).expect(422)).body.error).toMatchObject({ code: 'invalid_request', param: 'body' });
    expect((await upload(api, source.id, gzipSync(Buffer.from(CAMT)).subarray(0, 40)).expect(422)).body.error).toMatchObject({ param: 'body' });
    expect(await rows(api, source.id)).toEqual([]);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM statement_imports WHERE source_id = $1`, [source.id]);
    expect(n).toBe(0);
  });

  /** A camt.053 of `count` entries: several write batches, and more than one slice of the parser. */
  function largeCamt(count: number, entry: (i: number) => string = (i) => ntry(i, '1.00', 'CRDT')): string {
    const entries = Array.from({ length: count }, (_, i) => entry(i)).join('\n');
    return CAMT.replace(/<Ntry>[\s\S]*<\/Ntry>/, entries);
  }

  function ntry(i: number, amount: string, indicator: string): string {
    return `<Ntry><Amt Ccy="USD">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><BookgDt><Dt>2026-11-02</Dt></BookgDt><AcctSvcrRef>BIG-${i}</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>Überweisung ${i}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
  }

  it('lands a file of many batches, numbering refused entries across the file; a fault near its end stores nothing', async () => {
    const { api, source } = await books();
    const file = largeCamt(12_000, (i) => ntry(i, i === 10_001 ? '0.00' : '1.00', 'CRDT'));
    expect(Buffer.byteLength(file)).toBeGreaterThan(2 * 1024 * 1024);
    const res = await upload(api, source.id, file).expect(201);
    expect(res.body.data).toMatchObject({
      created_count: 11_999, replayed_count: 0, error_count: 1,
      errors: [{ param: 'entries[10001].amount', external_id: 'BIG-10001' }],
      statements: [{ entry_count: 12_000 }],
    });
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM external_transactions WHERE source_id = $1`, [source.id]);
    expect(n).toBe(11_999);

    // Batches before the fault were written when it was found: the whole import rolls back.
    const other = (await api.post('/sources', { name: `bank-${randomUUID()}` }).expect(201)).body.data;
    const refused = await upload(api, other.id, largeCamt(12_000, (i) => ntry(i, '1.00', i === 11_990 ? 'XX' : 'CRDT'))).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'invalid_statement' });
    expect(refused.body.error.message).toMatch(/Ntry\[11990\]: CdtDbtInd must be CRDT or DBIT/);
    const [{ rows, imports }] = await db.query(
      `SELECT (SELECT count(*)::int FROM external_transactions WHERE source_id = $1) AS rows, (SELECT count(*)::int FROM statement_imports WHERE source_id = $1) AS imports`,
      [other.id],
    );
    expect({ rows, imports }).toEqual({ rows: 0, imports: 0 });
  });

  it('reports entries ingest refuses as item errors while the others land', async () => {
    const { api, source } = await books();
    const res = await upload(api, source.id, CAMT.replace('<Amt Ccy="USD">45.00</Amt>', '<Amt Ccy="USD">0.00</Amt>')).expect(201);
    expect(res.body.data).toMatchObject({ created_count: 1, error_count: 1, errors: [{ code: 'invalid_request', param: 'entries[1].amount', external_id: 'CAMT-2' }] });
  });

  it('checks the closing balance against the account at the statement end date; a difference emits reconciliation.balance_mismatch', async () => {
    const { api, source } = await books();
    await api.account('rent', 'expense');
    await api.transfer('sales', 'bank', '25040', 'USD', { value_date: '2026-11-02T00:00:00Z' }).expect(201);
    await api.transfer('bank', 'rent', '4500', 'USD', { value_date: '2026-11-03T12:00:00Z' }).expect(201);
    // After the statement's end: not in the balance it is compared with.
    await api.transfer('sales', 'bank', '999', 'USD', { value_date: '2026-11-04T00:00:00Z' }).expect(201);
    const agreed = (await upload(api, source.id, CAMT).expect(201)).body.data;
    expect(agreed.balance_checks).toEqual([{ account_reference: 'CHK-1', account_id: 'bank', statement_closing: '20540', ledger_balance: '20540', difference: '0' }]);
    expect(await api.events('reconciliation.balance_mismatch')).toEqual([]);

    const off = (await upload(api, source.id, CAMT.replace('205.40', '205.00')).expect(201)).body.data;
    expect(off.balance_checks).toEqual([{ account_reference: 'CHK-1', account_id: 'bank', statement_closing: '20500', ledger_balance: '20540', difference: '-40' }]);
    const [event] = await api.events('reconciliation.balance_mismatch');
    expect(event).toMatchObject({ type: 'reconciliation.balance_mismatch', data: { statement_import_id: off.id, source_id: source.id, difference: '-40', account_id: 'bank' } });
  });

  it('checks each statement against the account its reference maps to in account_map, else default_account_id', async () => {
    const { api, source } = await books();
    await api.account('savings', 'asset');
    await api.transfer('sales', 'savings', '700', 'USD', { value_date: '2026-11-02T00:00:00Z' }).expect(201);
    const savingsStatement = (/<Stmt>[\s\S]*<\/Stmt>/.exec(CAMT)?.[0] ?? '').replaceAll('CHK-1', 'SAV-1').replaceAll('CAMT-', 'SAV-').replace('205.40', '7.00');
    const twoAccounts = CAMT.replace('</Stmt>', `</Stmt>${savingsStatement}`);

    for (const bad of [['savings'], { 'SAV-1': 7 }, { 'SAV-1': '' }, 'savings']) {
      expect((await api.patch(`/sources/${source.id}`, { account_map: bad }).expect(422)).body.error).toMatchObject({ code: 'invalid_request' });
    }
    const patched = await api.patch(`/sources/${source.id}`, { account_map: { 'SAV-1': 'savings', 'GONE-1': 'no-such-account' } }).expect(200);
    expect(patched.body.data).toMatchObject({ default_account_id: 'bank', account_map: { 'SAV-1': 'savings', 'GONE-1': 'no-such-account' } });
    expect((await api.get(`/sources/${source.id}`).expect(200)).body.data.account_map).toEqual({ 'SAV-1': 'savings', 'GONE-1': 'no-such-account' });

    const imported = (await upload(api, source.id, twoAccounts).expect(201)).body.data;
    expect(imported.statements.map((s: Json) => s.account_reference)).toEqual(['CHK-1', 'SAV-1']);
    expect(imported.balance_checks).toEqual([
      { account_reference: 'CHK-1', account_id: 'bank', statement_closing: '20540', ledger_balance: '0', difference: '20540' },
      { account_reference: 'SAV-1', account_id: 'savings', statement_closing: '700', ledger_balance: '700', difference: '0' },
    ]);
    // A reference mapped to an account the ledger lacks is not checked (and not answered with an error).
    const gone = (await upload(api, source.id, CAMT.replaceAll('CHK-1', 'GONE-1').replaceAll('CAMT-', 'GONE-')).expect(201)).body.data;
    expect(gone).toMatchObject({ created_count: 2, balance_checks: [] });

    expect((await api.patch(`/sources/${source.id}`, { account_map: null }).expect(200)).body.data.account_map).toEqual({});
    const unmapped = (await upload(api, source.id, twoAccounts).expect(201)).body.data;
    expect(unmapped.balance_checks.map((c: Json) => [c.account_reference, c.account_id])).toEqual([['CHK-1', 'bank'], ['SAV-1', 'bank']]);
  });

  it('refuses a statement for a source of another ledger (404) and lands nothing there', async () => {
    const { api, source } = await books();
    const other = await BooksApi.start(t);
    await upload(other, source.id, CAMT).expect(404);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM external_transactions WHERE source_id = $1`, [source.id]);
    expect(n).toBe(0);
    expect(await rows(api, source.id)).toEqual([]);
  });

  it('lists a source\'s imports newest first, a page at a time', async () => {
    const { api, source } = await books();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.unshift((await upload(api, source.id, MT940).expect(201)).body.data.id);
    const first = (await api.get(`/sources/${source.id}/statements?limit=2&include_total=true`).expect(200)).body;
    expect(first).toMatchObject({ has_more: true, total: 3 });
    expect(first.data.map((i: Json) => i.id)).toEqual(ids.slice(0, 2));
    const second = (await api.get(`/sources/${source.id}/statements?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`).expect(200)).body;
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.data.map((i: Json) => i.id)).toEqual(ids.slice(2));
    expect((await api.get(`/sources/${source.id}/statements?cursor=nonsense`).expect(422)).body.error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    await api.get(`/sources/${source.id}/statements?limit=0`).expect(422);
    await api.get(`/sources/${randomUUID()}/statements`).expect(404);
  });

  it('lets a source run match imported rows to postings', async () => {
    const { api, source } = await books();
    await api.transfer('sales', 'bank', '25040', 'USD', { value_date: '2026-11-02T00:00:00Z' }).expect(201);
    const imported = (await upload(api, source.id, CAMT).expect(201)).body.data;
    expect(imported.balance_checks).toMatchObject([{ ledger_balance: '25040', difference: '-4500' }]);
    const run = (await api.post(`/sources/${source.id}/reconciliation_runs`, {}).expect(201)).body.data;
    expect(run).toMatchObject({ matched_count: 1, unmatched_count: 1 });
    const matched = (await rows(api, source.id)).find((r) => r.external_id === 'CAMT-1');
    expect(matched).toMatchObject({ status: 'matched' });
  });

  it('replays an idempotent retry of the same file and refuses another file under the key', async () => {
    const { api, source } = await books();
    const key = randomUUID();
    const first = await upload(api, source.id, MT940, '', key).expect(201);
    const replay = await upload(api, source.id, MT940, '', key).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    await upload(api, source.id, BAI2, '', key).expect(409);
  });

  it('imports from a shell: pnpm ledger:admin import-statement --source <id> <file>', async () => {
    const { api, source } = await books();
    const file = join(await mkdtemp(join(tmpdir(), 'stmt-')), 'statement.bai2.gz');
    await writeFile(file, gzipSync(Buffer.from(BAI2)));
    const printed = await runLedgerAdmin(['import-statement', '--source', source.id, file], db);
    expect(printed).toMatchObject({ object: 'statement_import', source_id: source.id, format: 'bai2', created_count: 1 });
    expect((await api.get(`/statements/${printed.id}`).expect(200)).body.data).toEqual(printed);
    expect((await runLedgerAdmin(['import-statement', '--source', source.id, file], db))).toMatchObject({ created_count: 0, replayed_count: 1 });
    await expect(runLedgerAdmin(['import-statement', '--source', randomUUID(), file], db)).rejects.toThrow(OperatorUsageError);
    await expect(runLedgerAdmin(['import-statement', '--source', source.id, '--format', 'pdf', file], db)).rejects.toThrow(/--format must be one of/);
  });
});
