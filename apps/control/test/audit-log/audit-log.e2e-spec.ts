import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { pollUntil, rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion, suiteStack, SWC_REGISTER } from '@bursar/testing';
import { signCheckpoint } from '@bursar/crypto';
import { verifyRemoteLog } from '@bursar/service-kit';
import { runControlAdmin } from '../../src/admin/control-admin';
import { AuditLogService } from '../../src/audit-log/audit-log.service';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';
import { agentWithPolicy, pay, startDecisionStack, startStackWithMember } from '../decision-fixtures';


const hex = (s: string) => Buffer.from(s, 'hex');

interface Entry {
  index: number;
  type: string;
  resource_id: string;
  committed_at: string;
  leaf: string;
  leaf_hash: string;
}
interface Checkpoint {
  workspace_id: string;
  tree_size: number;
  root_hash: string;
  kid: string;
  token: string;
  signed_at: string;
}

describe("control's audit log", () => {
  const s = suiteStack(() => startStackWithMember('audit_log'));

  const http = () => request(s.t.app.getHttpServer());
  const db = () => s.t.app.get(DataSource);
  const log = (slug: string, rest: string) => `/control/v1/workspaces/${slug}/audit_log${rest}`;

  async function allEntries(slug: string, token = s.owner): Promise<Entry[]> {
    const out: Entry[] = [];
    for (let after: string | null = null; ; ) {
      const page: { data: Entry[]; has_more: boolean; next_cursor: string | null } = (
        await http()
          .get(log(slug, `/entries?limit=3${after === null ? '' : `&after=${after}`}`))
          .set(bearer(token))
          .expect(200)
      ).body;
      out.push(...page.data);
      if (!page.has_more) return out;
      after = page.next_cursor;
    }
  }

  /** The workspace's audit events in commit order, as the database holds them. */
  const events = (workspaceId: string): Promise<{ id: string; subject_id: string; subject_type: string; action: string; actor_type: string | null; actor_id: string | null; trace_id: string | null; snapshot: unknown; created_at: Date }[]> =>
    db().query(`SELECT * FROM audit_events WHERE workspace_id = $1 ORDER BY xid, seq`, [workspaceId]);

  /** Waits for the sealer loop (AUDIT_LOG_SEAL_INTERVAL_MS) to take in every audit event of the workspace. */
  async function sealed(workspaceId: string): Promise<number> {
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM audit_events WHERE workspace_id = $1`, [workspaceId]);
    await pollUntil(
      async () => ((await db().query(`SELECT tree_size::int AS size FROM log_heads WHERE log_id = $1`, [workspaceId]))[0]?.size as number | undefined) ?? 0,
      (size) => size === n,
    );
    return n;
  }

  const signNow = async (slug: string) => (await http().post(log(slug, '/checkpoints')).set(bearer(s.owner)).expect(201)).body.data as Checkpoint;

  async function verifyCheckpointToken(token: string): Promise<Record<string, unknown>> {
    const jwks = (await http().get('/.well-known/jwks.json').expect(200)).body as JSONWebKeySet;
    const { payload, protectedHeader } = await compactVerify(token, createLocalJWKSet(jwks));
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'bursar-checkpoint+jwt' });
    return JSON.parse(Buffer.from(payload).toString('utf8'));
  }

  it('seals decisions, approvals and policy changes in commit order, one leaf each, rebuilt from the audit event', async () => {
    const agent = await agentWithPolicy(s, { approval_threshold_cents: 1_000 }, 10_000);
    await pay(s.t.app, agent, { amount_cents: 500, counterparty: 'acme' }).expect(201);
    const held = (await pay(s.t.app, agent, { amount_cents: 5_000, counterparty: 'acme' }).expect(202)).body.data;
    await http().post(`/control/v1/workspaces/${s.slug}/payment_intents/${held.id}/approve`).set(bearer(s.owner)).expect(200);
    await http().patch(`/control/v1/workspaces/${s.slug}/policies/${agent.policyId}`).set(bearer(s.owner)).send({ per_transaction_cap_cents: 2_000 }).expect(200);

    const n = await sealed(s.workspaceId);
    const rows = await events(s.workspaceId);
    const entries = await allEntries(s.slug, s.member);
    expect(entries).toHaveLength(n);
    expect(entries.map((e) => e.index)).toEqual(rows.map((_, i) => i));
    expect(entries.map((e) => e.type)).toEqual(rows.map((r) => r.action));
    expect(entries.map((e) => e.type)).toEqual(expect.arrayContaining(['payment_intent.allowed', 'approval.granted', 'policy.updated']));
    rows.forEach((row, i) => {
      const entry = entries[i];
      expect(rfcLeafHash(entry.leaf).toString('hex')).toBe(entry.leaf_hash);
      expect(canonicalize(JSON.parse(entry.leaf))).toBe(entry.leaf);
      expect(JSON.parse(entry.leaf)).toEqual({
        index: i,
        type: row.action,
        resource_id: row.subject_id,
        committed_at: row.created_at.toISOString(),
        facts: {
          audit_event_id: row.id,
          subject_type: row.subject_type,
          subject_id: row.subject_id,
          action: row.action,
          trace_id: row.trace_id,
          actor_type: row.actor_type,
          actor_id: row.actor_id,
          snapshot_sha256: createHash('sha256').update(canonicalize(row.snapshot) as string).digest('hex'),
        },
      });
      expect(entry).toMatchObject({ resource_id: row.subject_id, committed_at: row.created_at.toISOString() });
    });

    // An auditor rebuilds the same facts from the audit event the API serves.
    for (const entry of entries) {
      const { facts } = JSON.parse(entry.leaf);
      const served = (await http().get(`/control/v1/workspaces/${s.slug}/audit_events/${facts.audit_event_id}`).set(bearer(s.member)).expect(200)).body.data;
      expect(createHash('sha256').update(canonicalize(served.snapshot) as string).digest('hex')).toBe(facts.snapshot_sha256);
      expect(served).toMatchObject({ action: entry.type, subject_id: entry.resource_id, created_at: entry.committed_at, trace_id: facts.trace_id });
    }

    const mine = (await http().get(log(s.slug, `/entries?resource_id=${held.id}`)).set(bearer(s.member)).expect(200)).body.data as Entry[];
    expect(mine.map((e) => e.type)).toEqual(['payment_intent.requires_approval', 'approval.granted']);
  });

  it('the standalone verifier checks a workspace log from the API alone, against a saved checkpoint', async () => {
    const server = s.t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const remote = { baseUrl: `http://127.0.0.1:${server.address().port}`, logPath: `/control/v1/workspaces/${s.slug}/audit_log`, jwksPath: '/.well-known/jwks.json', token: s.member };
    const agent = await agentWithPolicy(s, {}, 10_000);
    await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'acme' }).expect(201);
    const saved = await signNow(s.slug);
    const later = (await pay(s.t.app, agent, { amount_cents: 200, counterparty: 'acme' }).expect(201)).body.data;
    await sealed(s.workspaceId);
    await signNow(s.slug);
    const report = await verifyRemoteLog(remote, saved.token, [later.id]);
    expect(report).toMatchObject({ ok: true, consistent: true, problems: [], latest: { workspace_id: s.workspaceId } });
    expect(report.resources[0].entries).toEqual([expect.objectContaining({ type: 'payment_intent.allowed', included: true, leaf_ok: true })]);
  });

  it('signs checkpoints with the key control publishes, and proves inclusion and consistency as RFC 9162 says', async () => {
    const first = await signNow(s.slug);
    expect((await http().get(log(s.slug, '/checkpoints/latest')).set(bearer(s.member)).expect(200)).body.data).toEqual(first);
    // Signing again without growth answers the same checkpoint.
    expect(await signNow(s.slug)).toEqual(first);
    expect(await verifyCheckpointToken(first.token)).toEqual({
      workspace_id: s.workspaceId,
      tree_size: first.tree_size,
      root_hash: first.root_hash,
      timestamp: first.signed_at,
    });
    const before = (await allEntries(s.slug)).map((e) => hex(e.leaf_hash));
    expect(before).toHaveLength(first.tree_size);
    expect(rfcRoot(before).toString('hex')).toBe(first.root_hash);

    for (let index = 0; index < first.tree_size; index++) {
      const proof = (await http().get(log(s.slug, `/proofs/inclusion?index=${index}&tree_size=${first.tree_size}`)).set(bearer(s.member)).expect(200)).body.data;
      expect(proof).toMatchObject({ index, tree_size: first.tree_size, leaf_hash: before[index].toString('hex'), root_hash: first.root_hash });
      expect(rfcVerifyInclusion(before[index], index, first.tree_size, proof.audit_path.map(hex), hex(first.root_hash))).toBe(true);
      // A proof does not carry over to another leaf.
      expect(rfcVerifyInclusion(before[(index + 1) % first.tree_size], index, first.tree_size, proof.audit_path.map(hex), hex(first.root_hash))).toBe(false);
    }

    await createAgent(s.t.app, s.owner, s.slug, { name: 'second' });
    await sealed(s.workspaceId);
    const second = await signNow(s.slug);
    expect(second.tree_size).toBeGreaterThan(first.tree_size);
    await verifyCheckpointToken(second.token);
    const after = (await allEntries(s.slug)).map((e) => hex(e.leaf_hash));
    expect(rfcRoot(after).toString('hex')).toBe(second.root_hash);
    for (let from = 1; from <= second.tree_size; from++) {
      const proof = (await http().get(log(s.slug, `/proofs/consistency?from_size=${from}&to_size=${second.tree_size}`)).set(bearer(s.member)).expect(200)).body.data;
      const fromRoot = rfcRoot(after.slice(0, from));
      expect(proof).toMatchObject({ from_size: from, to_size: second.tree_size, from_root: fromRoot.toString('hex'), to_root: second.root_hash });
      expect(rfcVerifyConsistency(from, second.tree_size, proof.proof.map(hex), fromRoot, hex(second.root_hash))).toBe(true);
    }

    const listed = (await http().get(log(s.slug, '/checkpoints?limit=1')).set(bearer(s.member)).expect(200)).body;
    expect(listed).toEqual({ data: [second], has_more: true, next_cursor: String(second.tree_size) });
    const older = (await http().get(log(s.slug, `/checkpoints?limit=1&cursor=${listed.next_cursor}`)).set(bearer(s.member)).expect(200)).body;
    expect(older.data).toEqual([first]);
  });

  it('seals concurrent writers exactly once, in commit order, while they write', async () => {
    const agent = await agentWithPolicy(s, null, 1_000_000, { skip_starter_policy: false });
    const writes = Array.from({ length: 40 }, (_, i) => pay(s.t.app, agent, { amount_cents: 100 + i, counterparty: 'acme' }).then((r) => r.status));
    // Verifying while the sealer commits: each check reads one snapshot, so it finds nothing amiss.
    let writing = true;
    const verdicts: boolean[] = [];
    const verifying = (async () => {
      while (writing) verdicts.push((await s.t.app.get(AuditLogService).verify(s.workspaceId)).ok);
    })();
    expect(new Set(await Promise.all(writes))).toEqual(new Set([201]));
    writing = false;
    await verifying;
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts.every(Boolean)).toBe(true);
    const n = await sealed(s.workspaceId);
    const [{ distinct }] = await db().query(`SELECT count(DISTINCT source_id)::int AS distinct FROM log_entries WHERE log_id = $1`, [s.workspaceId]);
    expect(distinct).toBe(n);
    expect(await s.t.app.get(AuditLogService).verify(s.workspaceId)).toMatchObject({ ok: true, tree_size: n, findings: [] });
  });

  it.each([
    ['/proofs/inclusion?index=0&tree_size=100000', 422, 'tree_size_out_of_range'],
    ['/proofs/inclusion?index=5&tree_size=5', 422, 'index_out_of_range'],
    ['/proofs/consistency?from_size=3&to_size=2', 422, 'tree_size_out_of_range'],
    ['/proofs/consistency?from_size=1&to_size=100000', 422, 'tree_size_out_of_range'],
    ['/proofs/inclusion?index=-1&tree_size=2', 400, null],
    ['/proofs/inclusion?index=0&tree_size=0', 400, null],
    ['/proofs/inclusion?tree_size=2', 400, null],
    ['/proofs/inclusion?index=0&tree_size=99999999999999999999', 400, null],
    ['/proofs/consistency?from_size=a&to_size=2', 400, null],
    ['/entries?after=-2', 400, null],
    ['/entries?limit=ten', 400, null],
    ['/checkpoints?cursor=x', 400, null],
  ])('answers %s with %i %s', async (query, status, code) => {
    const res = await http().get(log(s.slug, query)).set(bearer(s.member)).expect(status);
    expect(res.body.error).toEqual(expect.objectContaining({ code, message: expect.any(String), hint: expect.any(String) }));
  });

  it('keeps each workspace to its own log and its own members', async () => {
    const quiet = await createWorkspace(s.t.app, s.member, { name: 'Quiet', slug: 'quiet' });
    await sealed(quiet.id);
    expect((await allEntries('quiet', s.member)).map((e) => e.type).sort()).toEqual(['membership.created', 'workspace.created']);
    await http().get(log('quiet', '/entries')).set(bearer(s.owner)).expect(404);
    expect((await http().post(log(s.slug, '/checkpoints')).set(bearer(s.member)).expect(403)).body.error.code).toBe('insufficient_role');
  });

  describe('verification from the database', () => {
    /** A workspace with a few sealed, signed entries of its own, so each tamper is checked alone. */
    async function workspace(slug: string) {
      const { id } = await createWorkspace(s.t.app, s.owner, { name: slug, slug });
      await createAgent(s.t.app, s.owner, slug);
      await sealed(id);
      const checkpoint = await signNow(slug);
      return { id, slug, checkpoint, entries: await allEntries(slug) };
    }
    const verify = (slug: string) => runControlAdmin(['verify-log', '--workspace', slug], db(), s.t.settings);
    const findings = async (slug: string) => ((await verify(slug)).logs as { findings: unknown[] }[])[0].findings;
    /** Changes audit events as only someone with the database's superuser could: the append-only triggers off for this transaction alone. */
    const tamper = (sql: string, params: unknown[]) =>
      db().transaction(async (em) => {
        await em.query(`SET LOCAL session_replication_role = replica`);
        await em.query(sql, params);
      });

    it('verifies an untouched log, through the service and the admin command', async () => {
      const w = await workspace('untouched');
      expect(await s.t.app.get(AuditLogService).verify(w.id)).toEqual({ log_id: w.id, ok: true, tree_size: w.entries.length, checkpoints_checked: 1, erased_entries: 0, findings: [] });
      expect(await verify('untouched')).toEqual({
        ok: true,
        logs: [{ workspace_slug: 'untouched', log_id: w.id, ok: true, tree_size: w.entries.length, checkpoints_checked: 1, erased_entries: 0, findings: [] }],
      });
      await expect(runControlAdmin(['verify-log', '--workspace', 'nowhere'], db(), s.t.settings)).rejects.toThrow('no live workspace');
      // The busiest log, past ten entries and two checkpoints: indexes and sizes compare as numbers.
      const busiest = await s.t.app.get(AuditLogService).verify(s.workspaceId);
      expect(busiest).toMatchObject({ ok: true, findings: [] });
      expect(busiest.tree_size).toBeGreaterThan(10);
      expect(busiest.checkpoints_checked).toBeGreaterThanOrEqual(2);
    });

    it("names the entry and resource whose audit event's snapshot was changed", async () => {
      const w = await workspace('changed');
      const target = w.entries[2];
      await tamper(`UPDATE audit_events SET snapshot = snapshot || '{"name": "someone else"}' WHERE workspace_id = $1 AND subject_id = $2 AND action = $3`, [
        w.id,
        target.resource_id,
        target.type,
      ]);
      expect(await findings('changed')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ problem: 'leaf_mismatch', index: 2, type: target.type, resource_id: target.resource_id, detail: expect.stringContaining('facts.snapshot_sha256') }),
          expect.objectContaining({ problem: 'root_mismatch', tree_size: w.checkpoint.tree_size }),
        ]),
      );
    });

    it('names the entry whose audit event was deleted', async () => {
      const w = await workspace('deleted');
      const target = w.entries[1];
      await tamper(`DELETE FROM audit_events WHERE workspace_id = $1 AND subject_id = $2 AND action = $3`, [w.id, target.resource_id, target.type]);
      expect(await findings('deleted')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ problem: 'source_missing', index: 1, type: target.type, resource_id: target.resource_id }),
          expect.objectContaining({ problem: 'unsealed_changes' }),
        ]),
      );
    });

    it('names the entries whose places were swapped', async () => {
      const w = await workspace('swapped');
      // Through a spare index: the primary key is checked row by row.
      await db().transaction(async (em) => {
        await em.query(`UPDATE log_entries SET index = index + 1000000 WHERE log_id = $1 AND index IN (1, 2)`, [w.id]);
        await em.query(`UPDATE log_entries SET index = CASE index WHEN 1000001 THEN 2 ELSE 1 END WHERE log_id = $1 AND index > 1000000`, [w.id]);
      });
      const found = await findings('swapped');
      expect(found).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ problem: 'leaf_mismatch', index: 1, resource_id: w.entries[2].resource_id, detail: expect.stringContaining('index') }),
          expect.objectContaining({ problem: 'leaf_mismatch', index: 2, resource_id: w.entries[1].resource_id }),
          expect.objectContaining({ problem: 'out_of_order', index: 2 }),
        ]),
      );
    });

    it('names the checkpoint re-signed with a foreign key, and the command exits non-zero', async () => {
      const w = await workspace('forged');
      const foreign = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const payload = JSON.parse(Buffer.from(w.checkpoint.token.split('.')[1], 'base64url').toString('utf8'));
      const forged = await signCheckpoint(payload, { kid: w.checkpoint.kid, key: foreign });
      await db().query(`UPDATE log_checkpoints SET token = $2 WHERE log_id = $1`, [w.id, forged]);
      expect(await findings('forged')).toEqual([
        expect.objectContaining({ problem: 'checkpoint_bad_signature', tree_size: w.checkpoint.tree_size, detail: expect.stringContaining(`tree size ${w.checkpoint.tree_size}`) }),
      ]);

      const cli = await runCli(['verify-log', '--workspace', 'forged']);
      expect(cli.code).toBe(1);
      expect(JSON.parse(cli.stdout)).toMatchObject({ ok: false, logs: [{ workspace_slug: 'forged', ok: false }] });
      const clean = await runCli(['verify-log', '--workspace', 'untouched']);
      expect(clean.code).toBe(0);
      expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true });
    });

    /** The operator CLI itself, as an operator runs it, against the test's database. */
    function runCli(args: string[]): Promise<{ code: number | null; stdout: string }> {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(__dirname, '../../src/admin.ts'), ...args], {
          env: {
            PATH: process.env.PATH,
            LOG_LEVEL: 'silent',
            BURSAR_DATA_DIR: path.join(__dirname, 'no-such-dir'),
            CONTROL_DATABASE_URL: s.t.settings.CONTROL_DATABASE_URL,
            CONTROL_SECRET_KEY: s.t.settings.CONTROL_SECRET_KEY,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.on('exit', (code) => resolve({ code, stdout }));
      });
    }
  });
});

describe("control's audit log without cosigning", () => {
  const s = suiteStack(() => startDecisionStack('audit_log_unsigned', { COSIGN_ISSUER: '', AUDIT_LOG_SEAL_INTERVAL_MS: '0' }));

  it('still seals entries on demand, and refuses to sign', async () => {
    const http = () => request(s.t.app.getHttpServer());
    expect(await s.t.app.get(AuditLogService).sealAll()).toBeGreaterThan(0);
    expect((await http().get(`/control/v1/workspaces/${s.slug}/audit_log/entries`).set(bearer(s.owner)).expect(200)).body.data.length).toBeGreaterThan(0);
    const res = await http().post(`/control/v1/workspaces/${s.slug}/audit_log/checkpoints`).set(bearer(s.owner)).expect(503);
    expect(res.body.error.code).toBe('audit_log_signing_not_configured');
    await http().get(`/control/v1/workspaces/${s.slug}/audit_log/checkpoints/latest`).set(bearer(s.owner)).expect(404);
  });
});
