import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { getHeapStatistics } from 'node:v8';
import S3rver from 's3rver';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { pollUntil } from '@bursar/testing';
import { ExportLinkSigner } from '../../src/exports/export-link';
import { S3ExportStorage } from '../../src/exports/storage/s3-export-storage';
import { BooksApi, Json } from '../books-api';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

jest.setTimeout(60_000);

/** Fast background rounds for tests; DEBUG_LOG=error shows server errors. */
const WORKER_ENV = { LEDGER_EXPORT_POLL_INTERVAL_MS: '20', LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' };
const BUCKET = 'bursar-exports';
const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function parseNdjson(text: string): Json[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Json);
}

/** Creates `count` two-leg transfers (cash <- deposits) through the bulk route, 1,000 per call. */
async function seedTransfers(api: BooksApi, count: number): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    const transactions = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
      idempotency_key: `seed-${start + i}`,
      metadata: { n: start + i },
      postings: [
        { account: 'cash', amount: String(start + i + 1), currency: 'USD', direction: 'debit' },
        { account: 'deposits', amount: String(start + i + 1), currency: 'USD', direction: 'credit' },
      ],
    }));
    const res = await api.post('/transactions/bulk', { transactions }, null);
    if (res.status !== 201) throw new Error(`bulk: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
}

async function readyExport(api: BooksApi, id: string, timeoutMs = 30_000): Promise<Json> {
  return pollUntil(
    async () => (await api.get(`/exports/${id}`).expect(200)).body.data as Json,
    (x) => x.status === 'ready' || x.status === 'failed',
    timeoutMs,
  );
}

describe('Exports (local storage)', () => {
  let t: LedgerTestApp;
  let api: BooksApi;
  let db: DataSource;
  let dir: string;
  const server = () => request(t.app.getHttpServer());
  /** The local link as a path the in-process server answers (the app does not listen on its public URL). */
  const pathOf = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-exports-'));
    t = await startLedgerTestApp('exports', { ...WORKER_ENV, LEDGER_EXPORT_DIR: dir });
    db = t.app.get(DataSource);
    api = await BooksApi.start(t);
    await api.account('cash', 'asset');
    await api.account('deposits', 'liability');
    await seedTransfers(api, 2100);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ledger_id = $1`, [api.client.ledgerId]))[0].n);

  it('accepts with 202, replays with 200, reaches ready, and serves NDJSON matching the books through signed links', async () => {
    // Every change sealed first, so each exported transaction's log_index is final and equals what a read answers.
    await api.post('/log/checkpoints').expect(201);
    const first = await api.post('/exports', { format: 'ndjson' }, 'export-all').expect(202);
    const created = first.body.data;
    expect(created).toMatchObject({
      object: 'export',
      status: 'pending',
      format: 'ndjson',
      resources: ['accounts', 'transactions', 'postings', 'events'],
      download_urls: [],
      expires_at: null,
      error_message: null,
    });
    const replay = await api.post('/exports', { format: 'ndjson' }, 'export-all').expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(created.id);

    const ready = await readyExport(api, created.id);
    expect(ready).toMatchObject({ status: 'ready', error_message: null });
    const urls = ready.download_urls as string[];
    expect(urls).toHaveLength(4);
    // 7 days by default.
    const lifetime = Date.parse(String(ready.expires_at)) - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 86_400_000 - 120_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86_400_000);

    // No bearer token: the signature is the credential.
    const files = await Promise.all(urls.map(async (url) => {
      const res = await server().get(pathOf(url)).buffer(true).parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString('utf8')));
        r.on('end', () => cb(null, text));
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('application/x-ndjson');
      return parseNdjson(res.body as string);
    }));
    const [accounts, transactions, postings, events] = files;
    expect(accounts).toHaveLength(await count('accounts'));
    expect(transactions).toHaveLength(await count('transactions'));
    expect(postings).toHaveLength(await count('postings'));
    expect(postings).toHaveLength(4200);
    expect(events).toHaveLength(await count('events'));
    // Every row once, in a stable order (no page boundary dropped or repeated a row).
    expect(new Set(postings.map((p) => p.id)).size).toBe(postings.length);
    expect(new Set(transactions.map((x) => x.id)).size).toBe(transactions.length);
    // Each line is the object the API answers for that resource.
    const someTransaction = transactions[1234];
    expect(someTransaction).toEqual((await api.get(`/transactions/${someTransaction.id}`).expect(200)).body.data);
    expect(accounts.find((a) => a.id === 'cash')).toEqual((await api.get('/accounts/cash').expect(200)).body.data);
    const page = (await api.get('/postings?limit=1').expect(200)).body.data[0];
    expect(postings.find((p) => p.id === page.id)).toEqual(page);
    expect(events[0]).toMatchObject({ object: 'event', ledger_id: api.client.ledgerId });
  }, 120_000);

  it('exports only the resources asked for, once each', async () => {
    const res = await api.post('/exports', { resources: ['postings', 'accounts', 'postings'] }).expect(202);
    expect(res.body.data.resources).toEqual(['postings', 'accounts']);
    const ready = await readyExport(api, res.body.data.id);
    expect(ready.download_urls).toHaveLength(2);
    expect(String((ready.download_urls as string[])[0])).toContain('/files/postings?');
  });

  it('refuses unknown resources and formats with 422 invalid_request naming the field', async () => {
    const badResource = await api.post('/exports', { resources: ['accounts', 'payroll'] }).expect(422);
    expect(badResource.body.error).toMatchObject({ code: 'invalid_request' });
    expect(badResource.body.error.param).toMatch(/^resources/);
    const badFormat = await api.post('/exports', { format: 'csv' }).expect(422);
    expect(badFormat.body.error).toMatchObject({ code: 'invalid_request', param: 'format' });
    await api.post('/exports', { resources: [] }).expect(422);
    await api.post('/exports', { resources: 'accounts' }).expect(422);
    expect(await db.query(`SELECT 1 FROM exports WHERE ledger_id = $1 AND 'payroll' = ANY(resources)`, [api.client.ledgerId])).toHaveLength(0);
  });

  it('refuses tampered, foreign, malformed and expired links with 403 forbidden in the envelope', async () => {
    const id = (await api.post('/exports', { resources: ['accounts'] }).expect(202)).body.data.id;
    const url = new URL(String(((await readyExport(api, id)).download_urls as string[])[0]));
    await server().get(pathOf(url.href)).expect(200);
    const variant = (change: (u: URL) => void) => {
      const u = new URL(url.href);
      change(u);
      return server().get(pathOf(u.href));
    };
    const sig = url.searchParams.get('signature') ?? '';
    const cases = [
      variant((u) => u.searchParams.set('signature', `${sig[0] === 'a' ? 'b' : 'a'}${sig.slice(1)}`)),
      variant((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60))),
      variant((u) => (u.pathname = u.pathname.replace('/files/accounts', '/files/postings'))),
      variant((u) => u.searchParams.set('ledger_id', '00000000-0000-4000-8000-000000000000')),
      variant((u) => u.searchParams.delete('signature')),
      variant((u) => u.searchParams.set('expires', 'soon')),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden' });
      expect(res.body).toHaveProperty('request_id');
    }
    // A link correctly signed by the ledger's own key but whose expiry has passed.
    const signer = t.app.get(ExportLinkSigner);
    const past = Math.floor(Date.now() / 1000) - 1;
    const file = { ledgerId: api.client.ledgerId, exportId: id, resource: 'accounts' };
    const expired = await server()
      .get(`/ledger/v1/exports/${id}/files/accounts?ledger_id=${api.client.ledgerId}&expires=${past}&signature=${signer.sign(file, past)}`)
      .expect(403);
    expect(expired.body.error.code).toBe('forbidden');
    // Once the export's own expiry passes, it lists no links.
    await db.query(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect((await api.get(`/exports/${id}`).expect(200)).body.data).toMatchObject({ status: 'ready', download_urls: [] });
  });

  it('keeps exports to their ledger: another tenant gets 404, and its links name its own ledger', async () => {
    const id = (await api.post('/exports', { resources: ['accounts'] }).expect(202)).body.data.id;
    const other = await BooksApi.start(t);
    const foreign = await other.get(`/exports/${id}`).expect(404);
    expect(foreign.body.error.code).toBe('not_found');
    await other.get('/exports/not-a-uuid').expect(404);
    await api.get('/exports/00000000-0000-4000-8000-000000000000').expect(404);
    await server().get(`/ledger/v1/exports/${id}`).expect(401);
    await other.post('/exports', { resources: ['accounts'] }).expect(202);
  });

  it('marks an export failed when its storage cannot be written', async () => {
    const broken = await BooksApi.start(t);
    // A file where the ledger's folder should be: creating the folder fails, even for root.
    await writeFile(join(dir, broken.client.ledgerId), 'not a folder');
    const id = (await broken.post('/exports', { resources: ['accounts', 'events'] }).expect(202)).body.data.id;
    const done = await readyExport(broken, id);
    expect(done).toMatchObject({ status: 'failed', download_urls: [], expires_at: null });
    expect(done.error_message).toMatch(/failed/);
  });

  it('picks up an export whose process died while running it', async () => {
    const id = (await api.post('/exports', { resources: ['accounts'] }).expect(202)).body.data.id;
    await readyExport(api, id);
    // As a dead worker leaves it: running, heartbeat long stopped.
    await db.query(
      `UPDATE exports SET status = 'running', expires_at = NULL, heartbeat_at = now() - interval '1 hour' WHERE id = $1`,
      [id],
    );
    const again = await readyExport(api, id);
    expect(again.status).toBe('ready');
    expect((await db.query(`SELECT attempts FROM exports WHERE id = $1`, [id]))[0].attempts).toBe(2);
  });

  it('reports exports in the capabilities and documents every route', async () => {
    expect((await api.get('/_meta/capabilities').expect(200)).body.data.features.exports).toBe(true);
    const doc = (await server().get('/ledger/v1/openapi.json').expect(200)).body;
    expect(JSON.stringify(doc.paths['/ledger/v1/exports'].post.responses['202'])).toContain('#/components/schemas/ExportResponse');
    expect(doc.paths['/ledger/v1/exports'].post.responses).toHaveProperty('200');
    expect(JSON.stringify(doc.paths['/ledger/v1/exports/{id}'].get.responses['200'])).toContain('#/components/schemas/ExportResponse');
    expect(doc.paths['/ledger/v1/exports/{id}/files/{resource}'].get.responses).toHaveProperty('403');
  });
});

/**
 * Opt-in (a few minutes): LEDGER_EXPORT_MEMORY_CHECK=50000 NODE_OPTIONS=--max-old-space-size=128 exports
 * that many two-posting transactions (100k postings) with every resource. The files come out larger
 * than the whole heap the process may use, so the export can only succeed by streaming.
 */
const memoryCheckTransfers = Number(process.env.LEDGER_EXPORT_MEMORY_CHECK ?? 0);
(memoryCheckTransfers > 0 ? describe : describe.skip)('Exports (bounded memory, opt-in)', () => {
  it('writes files larger than the heap limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledger-exports-memory-'));
    const t = await startLedgerTestApp('exports_memory', { ...WORKER_ENV, LEDGER_EXPORT_DIR: dir });
    try {
      const api = await BooksApi.start(t);
      await api.account('cash', 'asset');
      await api.account('deposits', 'liability');
      await seedTransfers(api, memoryCheckTransfers);
      const started = Date.now();
      const id = (await api.post('/exports', {}).expect(202)).body.data.id;
      const ready = await readyExport(api, id, 600_000);
      const seconds = (Date.now() - started) / 1000;
      expect(ready.status).toBe('ready');
      const resources = ready.resources as string[];
      const bytes = (await Promise.all(resources.map((r) => stat(join(dir, api.client.ledgerId, id, `${r}.ndjson`))))).reduce((n, f) => n + f.size, 0);
      const heapLimit = getHeapStatistics().heap_size_limit;
      console.log(JSON.stringify({ transfers: memoryCheckTransfers, seconds, file_mb: bytes / 2 ** 20, heap_limit_mb: heapLimit / 2 ** 20 }));
      expect(bytes).toBeGreaterThan(heapLimit);
    } finally {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 900_000);
});

describe('Exports (S3-compatible storage, a real s3rver)', () => {
  let s3rver: S3rver;
  let endpoint: string;
  let dir: string;
  let t: LedgerTestApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-s3-'));
    s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
    const { port } = await s3rver.run();
    endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_KEYS });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
    t = await startLedgerTestApp('exports_s3', {
      ...WORKER_ENV,
      EXPORT_S3_BUCKET: BUCKET,
      EXPORT_S3_ENDPOINT: endpoint,
      EXPORT_S3_REGION: 'us-east-1',
      EXPORT_S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
      EXPORT_S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
      EXPORT_S3_FORCE_PATH_STYLE: 'true',
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await s3rver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads the files to the bucket and answers presigned URLs valid for 7 days', async () => {
    const api = await BooksApi.start(t);
    await api.account('cash', 'asset');
    await api.account('deposits', 'liability');
    await seedTransfers(api, 300);
    const id = (await api.post('/exports', {}).expect(202)).body.data.id;
    const ready = await readyExport(api, id);
    expect(ready.status).toBe('ready');
    const urls = ready.download_urls as string[];
    expect(urls).toHaveLength(4);
    for (const url of urls) {
      expect(url.startsWith(`${endpoint}/${BUCKET}/exports/${api.client.ledgerId}/${id}/`)).toBe(true);
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toMatch(/^60[0-4]\d{3}$/);
    }
    const [accounts, transactions, postings] = await Promise.all(
      urls.slice(0, 3).map(async (url) => {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        return parseNdjson(await res.text());
      }),
    );
    expect(accounts.map((a) => a.id).sort()).toEqual(['cash', 'deposits']);
    expect(transactions).toHaveLength(300);
    expect(postings).toHaveLength(600);
    expect(postings[0]).toMatchObject({ object: 'posting', currency: 'USD' });
  }, 60_000);

  it('streams a file larger than one part as a multipart upload and reads it back', async () => {
    const storage = new S3ExportStorage({ bucket: BUCKET, region: 'us-east-1', endpoint, forcePathStyle: true, credentials: S3_KEYS });
    const lines = 60_000;
    function* body() {
      for (let i = 0; i < lines; i++) yield `${JSON.stringify({ i, pad: 'x'.repeat(100) })}\n`;
    }
    const file = { ledgerId: '00000000-0000-4000-8000-000000000001', exportId: '00000000-0000-4000-8000-000000000002', resource: 'postings' };
    await storage.put(file, Readable.from(body()));
    const res = await fetch(await storage.downloadUrl(file, new Date(Date.now() + 60_000)));
    const text = await res.text();
    expect(text.length).toBeGreaterThan(6 * 1024 * 1024);
    expect(parseNdjson(text)).toHaveLength(lines);
    let read = 0;
    for await (const chunk of await storage.open(file)) read += (chunk as Buffer).length;
    expect(read).toBe(text.length);
  }, 60_000);

  it('presigns download URLs for the public endpoint when the ledger reaches the service elsewhere', async () => {
    const storage = new S3ExportStorage({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint,
      publicEndpoint: 'http://files.bursar.test:9000',
      forcePathStyle: true,
      credentials: S3_KEYS,
    });
    const file = { ledgerId: '00000000-0000-4000-8000-000000000001', exportId: '00000000-0000-4000-8000-000000000003', resource: 'accounts' };
    await storage.put(file, Readable.from(['{"a":1}\n']));
    const url = new URL(await storage.downloadUrl(file, new Date(Date.now() + 3_600_000)));
    expect(url.origin).toBe('http://files.bursar.test:9000');
    expect(url.searchParams.get('X-Amz-Expires')).toMatch(/^3[56]\d\d$/);
    // The upload itself went to the ledger's endpoint.
    let text = '';
    for await (const chunk of await storage.open(file)) text += String(chunk);
    expect(text).toBe('{"a":1}\n');
  });

  it('fails the export when the bucket is not there', async () => {
    const missing = await startLedgerTestApp('exports_s3_missing', {
      ...WORKER_ENV,
      EXPORT_S3_BUCKET: 'no-such-bucket',
      EXPORT_S3_ENDPOINT: endpoint,
      EXPORT_S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
      EXPORT_S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
      EXPORT_S3_FORCE_PATH_STYLE: 'true',
    });
    try {
      const api = await BooksApi.start(missing);
      const id = (await api.post('/exports', { resources: ['accounts'] }).expect(202)).body.data.id;
      expect(await readyExport(api, id)).toMatchObject({ status: 'failed', download_urls: [] });
    } finally {
      await missing.close();
    }
  }, 60_000);
});
