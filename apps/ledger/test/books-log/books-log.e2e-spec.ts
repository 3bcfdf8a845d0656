import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { EntityManager } from 'typeorm';
import { verifyRemoteLog } from '@bursar/service-kit';
import { rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion } from '@bursar/testing';
import { runLedgerAdmin } from '../../src/admin/ledger-admin';
import { BooksApi, booksStack, Json } from '../books-api';

const hex = (h: string) => Buffer.from(h, 'hex');

describe('Books log: every change to a ledger as a verifiable Merkle log', () => {
  const api = booksStack('books-log', { accounts: ['cash', 'capital', 'hold'] });
  const ids: Record<string, string> = {};

  const entries = async (query = ''): Promise<Json[]> => (await api.get(`/log/entries?limit=1000${query}`).expect(200)).body.data;
  const checkpoint = async () => (await api.post('/log/checkpoints').expect(201)).body.data;
  const verify = async () => runLedgerAdmin(['verify-log', '--ledger', api.client.ledgerId], api.db) as Promise<{ ok: boolean; logs: { findings: Json[] }[] }>;
  /** Runs `sql` with triggers off (as an intruder with database access would), then puts things back with `undo`. */
  const tampered = async (sql: (em: EntityManager) => Promise<void>, undo: (em: EntityManager) => Promise<void>) => {
    const raw = (work: (em: EntityManager) => Promise<void>) =>
      api.db.transaction(async (em) => {
        await em.query(`SET LOCAL session_replication_role = replica`);
        await work(em);
      });
    await raw(sql);
    try {
      return await verify();
    } finally {
      await raw(undo);
    }
  };

  beforeAll(async () => {
    ids.first = (await api.transfer('capital', 'cash', '100', 'USD', { metadata: { order: 'A-1' } }).expect(201)).body.data.id;
    ids.pending = (
      await api
        .post('/transactions', {
          postings: [
            { account: 'hold', amount: '25', currency: 'USD', direction: 'debit', pending: true },
            { account: 'capital', amount: '25', currency: 'USD', direction: 'credit', pending: true },
          ],
        })
        .expect(201)
    ).body.data.id;
    await api.post(`/transactions/${ids.pending}/commit`).expect(200);
    await api.patch(`/transactions/${ids.first}`, { metadata: { order: 'A-2' } }).expect(200);
    ids.refund = (await api.post(`/transactions/${ids.first}/refund`, { amount: '10' }).expect(201)).body.data.id;
    ids.close = (await api.post('/period_closes', { period_start: '2020-01-01T00:00:00Z', period_end: '2020-02-01T00:00:00Z', closed_by_label: 'controller' }).expect(201)).body.data.id;
    await api.post(`/period_closes/${ids.close}/reopen`, { reopened_by_label: 'cfo' }).expect(200);
  });

  it('records each change once, in commit order, with the facts it wrote', async () => {
    const cp = await checkpoint();
    const log = await entries();
    expect(log.map((e) => [e.type, e.resource_id])).toEqual([
      ['account.created', 'cash'],
      ['account.created', 'capital'],
      ['account.created', 'hold'],
      ['transaction.created', ids.first],
      ['transaction.created', ids.pending],
      ['transaction.committed', ids.pending],
      ['transaction.updated', ids.first],
      ['transaction.refund_created', ids.refund],
      ['period.closed', ids.close],
      ['period.reopened', ids.close],
    ]);
    expect(log.map((e) => e.index)).toEqual(log.map((_, i) => i));
    expect(cp).toMatchObject({ object: 'log_checkpoint', ledger_id: api.client.ledgerId, tree_size: log.length });
    const leaf = JSON.parse(log[3].leaf as string);
    expect(leaf).toEqual({
      index: 3,
      type: 'transaction.created',
      resource_id: ids.first,
      committed_at: log[3].committed_at,
      facts: {
        kind: 'standard',
        value_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        reverses: null,
        refund: null,
        external_refs: [],
        metadata_digest: createHash('sha256').update('{"order":"A-1"}').digest('hex'),
        postings: [
          { id: expect.any(String), account: 'cash', amount: '100', currency: 'USD', direction: 'debit', pending: false },
          { id: expect.any(String), account: 'capital', amount: '100', currency: 'USD', direction: 'credit', pending: false },
        ],
      },
    });
    // A commit is an entry of its own: the creation's leaf still says the legs were written pending.
    expect(JSON.parse(log[4].leaf as string).facts.postings.map((p: Json) => p.pending)).toEqual([true, true]);
    expect(JSON.parse(log[5].leaf as string).facts.committed).toHaveLength(2);
    for (const e of log) expect(rfcLeafHash(e.leaf as string).toString('hex')).toBe(e.leaf_hash);
    // Once sealed, a transaction names where its creation sits.
    expect((await api.get(`/transactions/${ids.first}`).expect(200)).body.data.log_index).toBe(3);
    expect((await api.get(`/transactions?limit=10`).expect(200)).body.data.map((t: Json) => t.log_index).sort()).toEqual([3, 4, 7]);
    expect((await api.transfer('capital', 'cash', '1').expect(201)).body.data.log_index).toBeNull();
    expect(rfcRoot(log.map((e) => hex(e.leaf_hash as string))).toString('hex')).toBe(cp.root_hash);
  });

  it('signs checkpoints with a key of its public JWKS, also at /.well-known/jwks.json', async () => {
    const cp = await checkpoint();
    const server = request(api.t.app.getHttpServer());
    const jwks = (await server.get('/ledger/v1/log/jwks.json').expect(200)).body;
    expect((await server.get('/.well-known/jwks.json').expect(200)).body).toEqual(jwks);
    const { payload, protectedHeader } = await compactVerify(cp.token, createLocalJWKSet(jwks));
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'bursar-checkpoint+jwt', kid: cp.kid });
    expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ ledger_id: cp.ledger_id, tree_size: cp.tree_size, root_hash: cp.root_hash, timestamp: cp.timestamp });
    expect((await api.get('/log/checkpoints/latest').expect(200)).body.data).toEqual(cp);
    // The log has not grown: the same checkpoint again, not a second one.
    expect(await checkpoint()).toEqual(cp);
  });

  it('proves inclusion of every entry and consistency between every two sizes, checked by the RFC algorithms', async () => {
    const log = await entries();
    const size = log.length;
    const root = rfcRoot(log.map((e) => hex(e.leaf_hash as string)));
    for (const e of log) {
      const proof = (await api.get(`/log/proofs/inclusion?index=${e.index}&tree_size=${size}`).expect(200)).body.data;
      expect(proof).toMatchObject({ object: 'inclusion_proof', leaf_hash: e.leaf_hash, root_hash: root.toString('hex') });
      expect(rfcVerifyInclusion(hex(e.leaf_hash as string), e.index as number, size, proof.audit_path.map(hex), root)).toBe(true);
      expect(rfcVerifyInclusion(hex(e.leaf_hash as string), ((e.index as number) + 1) % size, size, proof.audit_path.map(hex), root)).toBe(false);
    }
    for (let m = 1; m <= size; m++) {
      const proof = (await api.get(`/log/proofs/consistency?from_size=${m}&to_size=${size}`).expect(200)).body.data;
      const oldRoot = rfcRoot(log.slice(0, m).map((e) => hex(e.leaf_hash as string)));
      expect(proof.from_root).toBe(oldRoot.toString('hex'));
      expect(rfcVerifyConsistency(m, size, proof.proof.map(hex), oldRoot, root)).toBe(true);
    }
  });

  it('answers sizes past the sealed log, and malformed queries, with the documented errors', async () => {
    const size = (await entries()).length;
    const past = await api.get(`/log/proofs/inclusion?index=0&tree_size=${size + 1}`).expect(422);
    expect(past.body.error).toMatchObject({ code: 'log_size_exceeded', param: 'tree_size', details: { sealed_size: size } });
    expect((await api.get(`/log/proofs/inclusion?index=${size}&tree_size=${size}`).expect(422)).body.error).toMatchObject({ code: 'log_size_exceeded', param: 'index' });
    expect((await api.get(`/log/proofs/consistency?from_size=3&to_size=2`).expect(422)).body.error).toMatchObject({ code: 'log_size_exceeded', param: 'from_size' });
    expect((await api.get('/log/proofs/inclusion?index=-1&tree_size=2').expect(422)).body.error.code).toBe('invalid_request');
    expect((await api.get('/log/proofs/consistency?from_size=x&to_size=2').expect(422)).body.error.code).toBe('invalid_request');
    expect((await api.get('/log/checkpoints?cursor=abc').expect(422)).body.error.code).toBe('invalid_request');
    const empty = await BooksApi.start(api.t);
    expect((await empty.post('/log/checkpoints').expect(409)).body.error.code).toBe('checkpoint_unavailable');
    expect((await empty.get('/log/checkpoints/latest').expect(404)).body.error.code).toBe('not_found');
    const reader = await BooksApi.start(api.t, ['ledger:read']);
    expect((await reader.post('/log/checkpoints').expect(403)).body.error.code).toBe('insufficient_scope');
    await request(api.t.app.getHttpServer()).get('/ledger/v1/log/entries').expect(401);
  });

  it('serves entries page by page and by resource', async () => {
    const all = await entries();
    const first = (await api.get('/log/entries?limit=4').expect(200)).body;
    expect(first).toMatchObject({ has_more: true, next_cursor: '3' });
    const rest = (await api.get(`/log/entries?limit=1000&after=${first.next_cursor}`).expect(200)).body;
    expect([...first.data, ...rest.data]).toEqual(all);
    expect((await entries(`&resource_id=${ids.first}`)).map((e) => e.type)).toEqual(['transaction.created', 'transaction.updated']);
  });

  it('seals concurrent writers exactly once, in the order the events tail serves them', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => api.transfer('capital', 'cash', String(i + 1)).expect(201)));
    await checkpoint();
    const log = await entries();
    const tail = (await api.get('/events?after=' + (await api.events('account.created')).at(-1)?.id + '&limit=200').expect(200)).body.data as Json[];
    const sealed = log.filter((e) => e.type === 'transaction.created').map((e) => e.resource_id);
    expect(sealed).toEqual(tail.filter((e) => e.type === 'transaction.created').map((e) => e.resource_id));
    expect(new Set(log.map((e) => `${e.type} ${e.resource_id}`)).size).toBe(log.length);
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('verify-log passes an untouched log and names the entry when a row is changed, deleted or reordered', async () => {
    expect(await verify()).toMatchObject({ ok: true, logs: [{ findings: [] }] });
    const log = await entries();
    const created = log.find((e) => e.resource_id === ids.first && e.type === 'transaction.created') as Json;

    const amount = await tampered(
      (em) => em.query(`UPDATE postings SET amount = amount + 1 WHERE transaction_id = $1 AND direction = 'debit'`, [ids.first]),
      (em) => em.query(`UPDATE postings SET amount = amount - 1 WHERE transaction_id = $1 AND direction = 'debit'`, [ids.first]),
    );
    expect(amount.ok).toBe(false);
    expect(amount.logs[0].findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ problem: 'leaf_mismatch', index: created.index, resource_id: ids.first, detail: expect.stringContaining('facts.postings') })]),
    );

    const [event] = await api.db.query(`SELECT * FROM events WHERE type = 'transaction.updated' AND resource_id = $1`, [ids.first]);
    const updated = log.find((e) => e.type === 'transaction.updated') as Json;
    const deleted = await tampered(
      (em) => em.query(`DELETE FROM events WHERE id = $1`, [event.id]),
      (em) =>
        em.query(
          `INSERT INTO events (id, seq, organization_id, ledger_id, mode, type, resource_id, data, created_at, relayed_at, xid, trace_context)
           OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [event.id, event.seq, event.organization_id, event.ledger_id, event.mode, event.type, event.resource_id, event.data, event.created_at, event.relayed_at, event.xid, event.trace_context],
        ),
    );
    expect(deleted.ok).toBe(false);
    expect(deleted.logs[0].findings).toEqual(expect.arrayContaining([expect.objectContaining({ problem: 'source_missing', index: updated.index, resource_id: ids.first })]));

    const swap = (a: number, b: number) => async (em: EntityManager) => {
      const ledger = api.client.ledgerId;
      await em.query(`UPDATE log_entries SET index = 999999999 WHERE log_id = $1 AND index = $2`, [ledger, a]);
      await em.query(`UPDATE log_entries SET index = $3 WHERE log_id = $1 AND index = $2`, [ledger, b, a]);
      await em.query(`UPDATE log_entries SET index = $2 WHERE log_id = $1 AND index = 999999999`, [ledger, b]);
    };
    const reordered = await tampered(swap(3, 4), swap(3, 4));
    expect(reordered.ok).toBe(false);
    expect(reordered.logs[0].findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ problem: 'out_of_order', index: 4, resource_id: ids.first }),
        expect.objectContaining({ problem: 'leaf_mismatch', index: 3, resource_id: ids.pending }),
      ]),
    );
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('verify-log fails a checkpoint re-signed with a foreign key', async () => {
    const cp = await checkpoint();
    const foreign = await generateKeyPair('ES256');
    const payload = { ledger_id: cp.ledger_id, tree_size: cp.tree_size, root_hash: cp.root_hash, timestamp: cp.timestamp };
    const forge = (kid: string) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid, typ: 'bursar-checkpoint+jwt' }).sign(foreign.privateKey);
    const restore = (em: EntityManager) => em.query(`UPDATE log_checkpoints SET token = $1 WHERE log_id = $2 AND tree_size = $3`, [cp.token, cp.ledger_id, cp.tree_size]);
    for (const [kid, problem] of [
      [cp.kid, 'checkpoint_bad_signature'],
      [(await exportJWK(foreign.publicKey)).x as string, 'checkpoint_unknown_key'],
    ]) {
      const token = await forge(kid);
      const found = await tampered((em) => em.query(`UPDATE log_checkpoints SET token = $1 WHERE log_id = $2 AND tree_size = $3`, [token, cp.ledger_id, cp.tree_size]), restore);
      expect(found.ok).toBe(false);
      expect(found.logs[0].findings).toEqual([expect.objectContaining({ problem, tree_size: cp.tree_size })]);
    }
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('the standalone verifier checks a saved checkpoint, the latest one and a resource from the API alone', async () => {
    const server = api.t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const remote = { baseUrl: `http://127.0.0.1:${server.address().port}`, logPath: '/ledger/v1/log', jwksPath: '/ledger/v1/log/jwks.json', token: api.token };
    const saved = await checkpoint();
    const later = (await api.transfer('capital', 'cash', '3').expect(201)).body.data.id;
    await checkpoint();
    const good = await verifyRemoteLog(remote, saved.token, [ids.first, later]);
    expect(good).toMatchObject({ ok: true, consistent: true, problems: [] });
    expect(good.resources[0].entries.map((e) => e.type)).toEqual(['transaction.created', 'transaction.updated']);
    expect(good.resources[1].entries).toEqual([expect.objectContaining({ type: 'transaction.created', included: true, leaf_ok: true })]);

    // A server that rewrote an old entry can no longer prove the old tree is part of the new one.
    const rewrite = (em: EntityManager) => em.query(`UPDATE log_entries SET leaf_hash = sha256(leaf_hash) WHERE log_id = $1 AND index = 3`, [api.client.ledgerId]);
    const [{ leaf_hash: original }] = await api.db.query(`SELECT leaf_hash FROM log_entries WHERE log_id = $1 AND index = 3`, [api.client.ledgerId]);
    await api.db.transaction(rewrite);
    try {
      const bad = await verifyRemoteLog(remote, saved.token, [ids.first]);
      expect(bad.ok).toBe(false);
      expect(bad.consistent).toBe(false);
      expect(bad.problems).toEqual(expect.arrayContaining([expect.stringContaining('does not extend the saved one'), expect.stringContaining(`entry 3 of ${ids.first}`)]));
    } finally {
      await api.db.query(`UPDATE log_entries SET leaf_hash = $2 WHERE log_id = $1 AND index = 3`, [api.client.ledgerId, original]);
    }
  });

  it('still verifies after a lawful anonymization, vouching for erased metadata by the leaves sealed before it', async () => {
    const tenant = await BooksApi.start(api.t);
    await tenant.account('client:jane', 'liability', 'USD', { metadata: { email: 'jane@example.com' }, counterparty_ref: 'cp-jane' });
    await tenant.account('bank', 'asset');
    await tenant.transfer('client:jane', 'bank', '40', 'USD', { metadata: { payer: 'Jane Roe' } }).expect(201);
    await tenant.post('/log/checkpoints').expect(201);
    await tenant.post('/tenants/me/anonymize', { confirm: 'ANONYMIZE', reason: 'erasure request' }, null).expect(202);
    const check = async () => (await runLedgerAdmin(['verify-log', '--ledger', tenant.client.ledgerId], api.db)) as { ok: boolean; logs: { erased_entries: number; findings: Json[] }[] };
    expect(await check()).toMatchObject({ ok: true, logs: [{ erased_entries: 2, findings: [] }] });
    // Amounts were never erasable.
    await api.db.transaction(async (em) => {
      await em.query(`SET LOCAL session_replication_role = replica`);
      await em.query(`UPDATE postings SET amount = 41 WHERE ledger_id = $1 AND account_id = 'bank'`, [tenant.client.ledgerId]);
    });
    const broken = await check();
    expect(broken.ok).toBe(false);
    expect(broken.logs[0].findings).toEqual(expect.arrayContaining([expect.objectContaining({ problem: 'leaf_mismatch', detail: expect.stringContaining('facts.postings.0.amount') })]));
  });
});
