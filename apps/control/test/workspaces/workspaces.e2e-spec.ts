import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createWorkspace, seatMember } from '../control-fixtures';

describe('workspaces', () => {
  let alice: string;
  let bob: string;

  const s = suiteStack(() => startIdentifiedTestApp('workspaces', ['alice', 'bob']));
  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.idp.token('alice'), s.idp.token('bob')]);
  });

  const http = () => request(s.t.app.getHttpServer());

  it('makes the creator its owner, derives the slug, and audits both writes in one go', async () => {
    const res = await http().post('/control/v1/workspaces').set(bearer(alice)).send({ name: 'Acme Robotics!' }).expect(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(String),
        name: 'Acme Robotics!',
        slug: 'acme-robotics',
        role: 'owner',
        capabilities: ['read', 'approve', 'manage_policy', 'manage_members'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const events = await s.t.app
      .get(DataSource)
      .query(`SELECT subject_type, action, trace_id FROM audit_events WHERE workspace_id = $1 ORDER BY action`, [res.body.data.id]);
    const traceId = res.headers['x-request-id'];
    expect(events).toEqual([
      { subject_type: 'WorkspaceMembership', action: 'membership.created', trace_id: traceId },
      { subject_type: 'Workspace', action: 'workspace.created', trace_id: traceId },
    ]);
  });

  it('refuses a taken slug with 422 and invents a free one when the slug was only derived', async () => {
    await createWorkspace(s.t.app, alice, { name: 'Taken', slug: 'taken' });
    const res = await http().post('/control/v1/workspaces').set(bearer(bob)).send({ name: 'Other', slug: 'taken' }).expect(422);
    expect(res.body.error.code).toBeNull();
    const derived = await createWorkspace(s.t.app, bob, { name: 'taken' });
    expect(derived.slug).toMatch(/^taken-[0-9a-f]{6}$/);
  });

  it.each([
    [{}, 'name', 400],
    [{ name: '' }, 'name', 422],
    [{ name: 'x', slug: 'Not A Slug' }, 'slug', 422],
    [{ name: 'x', extra: 1 }, 'extra', 422],
  ])('answers bad input %j (%s) with %i, a null code, and no workspace', async (body, field, status) => {
    const before = await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM workspaces`);
    const res = await http().post('/control/v1/workspaces').set(bearer(alice)).send(body).expect(status);
    expect(res.body.error).toEqual({ message: expect.stringContaining(field), code: null, hint: expect.any(String), param: field, details: { fields: { [field]: [expect.any(String)] } } });
    expect(await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM workspaces`)).toEqual(before);
  });

  it('lists and shows only the workspaces the caller belongs to, with the caller role', async () => {
    const shared = await createWorkspace(s.t.app, alice, { name: 'Shared', slug: 'shared' });
    await seatMember(s.t.app, shared.id, 'bob', 'member');
    const mine = await http().get('/control/v1/workspaces').set(bearer(bob)).expect(200);
    expect(mine.body.data.map((w: { slug: string }) => w.slug)).toEqual(expect.arrayContaining(['shared']));
    expect(mine.body.data.map((w: { slug: string }) => w.slug)).not.toContain('acme-robotics');

    const seen = await http().get('/control/v1/workspaces/shared').set(bearer(bob)).expect(200);
    expect(seen.body.data).toMatchObject({ slug: 'shared', role: 'member', capabilities: ['read'] });
  });

  it('answers 404 alike for a workspace the caller is not in and one that does not exist', async () => {
    for (const slug of ['acme-robotics', 'no-such-workspace']) {
      const res = await http().get(`/control/v1/workspaces/${slug}`).set(bearer(bob)).expect(404);
      expect(res.body).toEqual({ error: { message: 'No such workspace', code: null, hint: expect.any(String) } });
    }
  });

  it('keeps the audit log append-only at the database level', async () => {
    const db = s.t.app.get(DataSource);
    await expect(db.query(`UPDATE audit_events SET action = 'x'`)).rejects.toThrow(/append-only/);
    await expect(db.query(`DELETE FROM audit_events`)).rejects.toThrow(/append-only/);
    await expect(db.query(`TRUNCATE audit_events`)).rejects.toThrow(/append-only/);
  });
});
