import request from 'supertest';
import { DataSource } from 'typeorm';
import { IdentifiedTestApp, startIdentifiedTestApp } from '../control-test-app';
import { bearer, createWorkspace } from '../control-fixtures';

interface Member {
  id: string;
  user_sub: string;
  role: string;
  capabilities: string[];
}

describe('memberships', () => {
  let s: IdentifiedTestApp;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    const people = ['olga', 'adam', 'mia', 'stranger'];
    s = await startIdentifiedTestApp('memberships', people);
    for (const p of people) tokens[p] = await s.idp.token(p);
    await createWorkspace(s.t.app, tokens.olga, { name: 'Team', slug: 'team' });
  });
  afterAll(() => s.close());

  const http = () => request(s.t.app.getHttpServer());
  const base = '/control/v1/workspaces/team/memberships';
  const add = (body: Record<string, unknown>, as = 'olga') => http().post(base).set(bearer(tokens[as])).send(body);
  const members = async (as = 'olga') => (await http().get(base).set(bearer(tokens[as])).expect(200)).body.data as Member[];
  const byName = async (sub: string) => (await members()).find((m) => m.user_sub === sub) as Member;
  const owners = async () =>
    (await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM workspace_memberships WHERE role = 'owner'`))[0].n as number;

  it('adds members with roles and the capabilities each role carries', async () => {
    const adam = await add({ user_sub: 'adam', email: 'adam@example.com', role: 'admin' }).expect(201);
    expect(adam.body).toEqual({
      data: {
        id: expect.any(String),
        user_sub: 'adam',
        email: 'adam@example.com',
        role: 'admin',
        capabilities: ['read', 'approve', 'manage_policy'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const mia = await add({ user_sub: 'mia' }).expect(201);
    expect(mia.body.data).toMatchObject({ role: 'member', email: null, capabilities: ['read'] });
    expect((await members('mia')).map((m) => m.user_sub)).toEqual(['olga', 'adam', 'mia']);
    const ws = await http().get('/control/v1/workspaces/team').set(bearer(tokens.adam)).expect(200);
    expect(ws.body.data).toMatchObject({ role: 'admin', capabilities: ['read', 'approve', 'manage_policy'] });
  });

  it('refuses a duplicate member with 422 and a bad body with 422', async () => {
    expect((await add({ user_sub: 'mia' }).expect(422)).body.error.code).toBeNull();
    await add({ user_sub: 'x', role: 'emperor' }).expect(422);
    await add({ user_sub: '' }).expect(422);
    await add({ user_sub: 'x', email: 'not-an-email' }).expect(422);
  });

  it('gives 403 insufficient_role to members and admins without manage_members', async () => {
    for (const who of ['mia', 'adam']) {
      const res = await add({ user_sub: 'someone' }, who).expect(403);
      expect(res.body.error).toEqual({ message: expect.any(String), code: 'insufficient_role', hint: expect.any(String) });
    }
    const adam = await byName('adam');
    await http().patch(`${base}/${adam.id}`).set(bearer(tokens.mia)).send({ role: 'member' }).expect(403);
    const res = await http().delete(`${base}/${adam.id}`).set(bearer(tokens.mia)).expect(403);
    expect(res.body.error.code).toBe('insufficient_role');
  });

  it('answers 404 to a person outside the workspace', async () => {
    await http().get(base).set(bearer(tokens.stranger)).expect(404);
    await http().get('/control/v1/workspaces/no-such/memberships').set(bearer(tokens.olga)).expect(404);
  });

  it('never demotes or removes the last owner, and lets a second owner take over', async () => {
    const olga = await byName('olga');
    const res = await http().patch(`${base}/${olga.id}`).set(bearer(tokens.olga)).send({ role: 'admin' }).expect(422);
    expect(res.body.error.code).toBeNull();
    await http().delete(`${base}/${olga.id}`).set(bearer(tokens.olga)).expect(422);
    expect(await owners()).toBe(1);

    const adam = await byName('adam');
    const promoted = await http().patch(`${base}/${adam.id}`).set(bearer(tokens.olga)).send({ role: 'owner' }).expect(200);
    expect(promoted.body.data).toMatchObject({ role: 'owner', capabilities: ['read', 'approve', 'manage_policy', 'manage_members'] });
    // Two owners demoting each other at once: the workspace row serialises them, one must lose.
    const [a, b] = await Promise.all([
      http().patch(`${base}/${olga.id}`).set(bearer(tokens.adam)).send({ role: 'member' }),
      http().patch(`${base}/${adam.id}`).set(bearer(tokens.olga)).send({ role: 'member' }),
    ]);
    // The loser is refused by the last-owner rule, or already demoted by the time its own check runs.
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    expect([422, 403]).toContain(a.status === 200 ? b.status : a.status);
    expect(await owners()).toBe(1);
    const winner = a.status === 200 ? adam : olga;
    const loser = a.status === 200 ? olga : adam;
    await http().patch(`${base}/${loser.id}`).set(bearer(tokens[winner.user_sub])).send({ role: 'owner' }).expect(200);
  });

  it('lets a member leave on their own, audits every change, and 404s an unknown membership', async () => {
    const mia = await byName('mia');
    await http().delete(`${base}/${mia.id}`).set(bearer(tokens.mia)).expect(204);
    await http().get(base).set(bearer(tokens.mia)).expect(404);
    await http().delete(`${base}/${mia.id}`).set(bearer(tokens.olga)).expect(404);
    await http().patch(`${base}/not-a-uuid`).set(bearer(tokens.olga)).send({ role: 'member' }).expect(400);
    const actions: { action: string }[] = await s.t.app
      .get(DataSource)
      .query(`SELECT action FROM audit_events WHERE subject_type = 'WorkspaceMembership' ORDER BY created_at`);
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(['membership.created', 'membership.role_changed', 'membership.removed']),
    );
  });
});
