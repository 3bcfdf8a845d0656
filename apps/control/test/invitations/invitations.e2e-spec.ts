import request from 'supertest';
import { DataSource } from 'typeorm';
import { sha256Hex } from '@bursar/crypto';
import { IdentifiedTestApp, startIdentifiedTestApp } from '../control-test-app';
import { bearer, createWorkspace, seatMember } from '../control-fixtures';

describe('invitations', () => {
  let s: IdentifiedTestApp;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    const people = ['owner', 'viewer', 'newbie', 'late', 'racer'];
    s = await startIdentifiedTestApp('invitations', people);
    for (const p of people) tokens[p] = await s.idp.token(p);
    const ws = await createWorkspace(s.t.app, tokens.owner, { name: 'Invites Inc', slug: 'invites' });
    await seatMember(s.t.app, ws.id, 'viewer', 'member');
  });
  afterAll(() => s.close());

  const http = () => request(s.t.app.getHttpServer());
  const base = '/control/v1/workspaces/invites/invitations';
  const invite = (body: Record<string, unknown>, as = 'owner') => http().post(base).set(bearer(tokens[as])).send(body);
  const lookup = (token: string, as: string) => http().get(`/control/v1/invitations/lookup?token=${token}`).set(bearer(tokens[as]));
  const accept = (token: string, as: string) => http().post('/control/v1/invitations/accept').set(bearer(tokens[as])).send({ token });

  it('creates an invitation with a one-time token, storing only its digest', async () => {
    const res = await invite({ email: 'newbie@example.com', role: 'admin' }).expect(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(String),
        email: 'newbie@example.com',
        role: 'admin',
        status: 'open',
        expires_at: expect.any(String),
        created_at: expect.any(String),
        token: expect.stringMatching(/^inv_/),
      },
    });
    const [row] = await s.t.app.get(DataSource).query(`SELECT token_digest FROM workspace_invitations WHERE id = $1`, [res.body.data.id]);
    expect(row.token_digest).toBe(sha256Hex(res.body.data.token));
    const listed = (await http().get(base).set(bearer(tokens.viewer)).expect(200)).body;
    expect(listed).toEqual({ data: [expect.objectContaining({ id: res.body.data.id })], has_more: false, next_cursor: null });
    expect(JSON.stringify(listed)).not.toContain(res.body.data.token);
  });

  it('replaces an open invitation for the same address', async () => {
    const first = (await invite({ email: 'late@example.com' }).expect(201)).body.data;
    const second = (await invite({ email: 'LATE@example.com' }).expect(201)).body.data;
    const open = (await http().get(base).set(bearer(tokens.owner)).expect(200)).body.data.map((i: { id: string }) => i.id);
    expect(open).toContain(second.id);
    expect(open).not.toContain(first.id);
    expect((await lookup(first.token, 'late').expect(422)).body.error.code).toBeNull();
    // Parallel invitations for one address: all answer 201 and exactly one stays open.
    const burst = await Promise.all(Array.from({ length: 5 }, () => invite({ email: 'burst@example.com' })));
    expect(burst.map((r) => r.status)).toEqual(Array(5).fill(201));
    const [{ n }] = await s.t.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM workspace_invitations WHERE email = 'burst@example.com' AND status = 'open'`);
    expect(n).toBe(1);
  });

  it('pages open invitations oldest first with limit and starting_after', async () => {
    const all = (await http().get(base).set(bearer(tokens.owner)).expect(200)).body.data.map((i: { id: string }) => i.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const first = (await http().get(`${base}?limit=2`).set(bearer(tokens.owner)).expect(200)).body;
    expect(first).toMatchObject({ has_more: true, next_cursor: all[1] });
    expect(first.data.map((i: { id: string }) => i.id)).toEqual(all.slice(0, 2));
    const rest = (await http().get(`${base}?limit=200&starting_after=${first.next_cursor}`).set(bearer(tokens.owner)).expect(200)).body;
    expect(rest.data.map((i: { id: string }) => i.id)).toEqual(all.slice(2));
  });

  it('looks a token up, accepts it once, and seats the person in the invited role', async () => {
    const { token } = (await invite({ email: 'n2@example.com', role: 'admin' }).expect(201)).body.data;
    const seen = await lookup(token, 'newbie').expect(200);
    expect(seen.body.data).toEqual({
      workspace_name: 'Invites Inc',
      workspace_slug: 'invites',
      email: 'n2@example.com',
      role: 'admin',
      expires_at: expect.any(String),
      signed_in_as: 'newbie',
      matches_account: false,
      already_member: false,
    });
    expect((await accept(token, 'newbie').expect(201)).body).toEqual({ data: { workspace_slug: 'invites', role: 'admin' } });
    const ws = await http().get('/control/v1/workspaces/invites').set(bearer(tokens.newbie)).expect(200);
    expect(ws.body.data.role).toBe('admin');
    await accept(token, 'late').expect(422);
    await lookup(token, 'late').expect(422);
    const actions: { action: string }[] = await s.t.app
      .get(DataSource)
      .query(`SELECT action FROM audit_events WHERE subject_type = 'WorkspaceInvitation' ORDER BY created_at`);
    expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(['invitation.created', 'invitation.accepted']));
  });

  it('lets exactly one of two people accept the same token at once', async () => {
    const { token } = (await invite({ email: 'race@example.com' }).expect(201)).body.data;
    const results = await Promise.all([accept(token, 'racer'), accept(token, 'late')]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    const [{ n }] = await s.t.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM workspace_memberships WHERE user_sub IN ('racer', 'late')`);
    expect(n).toBe(1);
  });

  it('answers 404 to an unknown token and 422 to a revoked or expired one', async () => {
    await lookup('inv_nope', 'late').expect(404);
    await lookup('garbage', 'late').expect(404);
    await accept('inv_nope', 'late').expect(404);
    await http().get('/control/v1/invitations/lookup').set(bearer(tokens.late)).expect(400);
    await http().post('/control/v1/invitations/accept').set(bearer(tokens.late)).send({}).expect(400);

    const revoked = (await invite({ email: 'gone@example.com' }).expect(201)).body.data;
    await http().delete(`${base}/${revoked.id}`).set(bearer(tokens.owner)).expect(204);
    await http().delete(`${base}/${revoked.id}`).set(bearer(tokens.owner)).expect(422);
    await lookup(revoked.token, 'late').expect(422);
    await accept(revoked.token, 'late').expect(422);

    const expired = (await invite({ email: 'old@example.com' }).expect(201)).body.data;
    await s.t.app.get(DataSource).query(`UPDATE workspace_invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.id]);
    await lookup(expired.token, 'late').expect(422);
    await accept(expired.token, 'late').expect(422);
    const open = (await http().get(base).set(bearer(tokens.owner)).expect(200)).body.data.map((i: { id: string }) => i.id);
    expect(open).not.toContain(expired.id);
  });

  it('refuses to invite an existing member (422), bad bodies (422), and people without manage_members (403)', async () => {
    await http()
      .post('/control/v1/workspaces/invites/memberships')
      .set(bearer(tokens.owner))
      .send({ user_sub: 'someone', email: 'member@example.com' })
      .expect(201);
    await invite({ email: 'Member@example.com' }).expect(422);
    await invite({ email: 'nope' }).expect(422);
    await invite({ email: 'a@example.com', role: 'king' }).expect(422);
    expect((await invite({ email: 'a@example.com' }, 'viewer').expect(403)).body.error.code).toBe('insufficient_role');
    await http().delete(`${base}/00000000-0000-4000-8000-000000000000`).set(bearer(tokens.owner)).expect(404);
    await http().get('/control/v1/invitations/lookup?token=x').expect(401);
  });
});
