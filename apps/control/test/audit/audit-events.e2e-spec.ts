import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditService } from '../../src/audit/audit.service';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace, seatMember } from '../control-fixtures';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

describe('audit events', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let owner: string;
  let viewer: string;
  let outsider: string;
  let workspaceId: string;
  let agentId: string;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['owner', 'viewer', 'outsider']);
    t = await startControlTestApp('audit_events', idp.env);
    [owner, viewer, outsider] = await Promise.all([idp.token('owner'), idp.token('viewer'), idp.token('outsider')]);
    workspaceId = (await createWorkspace(t.app, owner, { name: 'Audit', slug: 'audit' })).id;
    await createWorkspace(t.app, outsider, { name: 'Elsewhere', slug: 'elsewhere' });
    await seatMember(t.app, workspaceId, 'viewer', 'member');
    agentId = (await createAgent(t.app, owner, 'audit')).id;
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const http = () => request(t.app.getHttpServer());
  const list = (query = '', as = viewer) => http().get(`/control/v1/workspaces/audit/audit_events${query}`).set(bearer(as));

  it('lists every event newest first to any member, with the reference fields', async () => {
    const res = await list().expect(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    const actions = res.body.data.map((e: { action: string }) => e.action);
    // The starter policy is written in the agent's transaction, so its event sits beside agent.created.
    expect(actions.filter((a: string) => a !== 'policy.created')).toEqual(['agent.created', 'membership.created', 'workspace.created']);
    expect(res.body.data.find((e: { action: string }) => e.action === 'agent.created')).toEqual({
      id: expect.any(String),
      subject_type: 'Agent',
      subject_id: agentId,
      action: 'agent.created',
      trace_id: expect.any(String),
      snapshot: expect.objectContaining({ id: agentId, name: 'buyer' }),
      actor: { type: 'person', id: 'owner' },
      created_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/krt_test_[A-Za-z0-9_-]{20}/);
  });

  it('filters by subject_type, subject_id, action and trace_id', async () => {
    const ws = (await list('?subject_type=Workspace').expect(200)).body.data;
    expect(ws).toEqual([expect.objectContaining({ action: 'workspace.created', subject_id: workspaceId })]);
    expect((await list(`?subject_id=${agentId}`).expect(200)).body.data).toHaveLength(1);
    expect((await list('?action=membership.created').expect(200)).body.data).toHaveLength(1);
    expect((await list(`?trace_id=${ws[0].trace_id}`).expect(200)).body.data).toHaveLength(2);
    expect((await list('?subject_type=Session').expect(200)).body.data).toEqual([]);
  });

  it.each(['?subject_type=Spaceship', '?subject_id=42', '?limit=ten'])('refuses the bad filter %s with 400', async (query) => {
    expect((await list(query).expect(400)).body.error).toEqual({ message: expect.any(String), code: null, hint: expect.any(String), param: query.slice(1).split('=')[0], details: { fields: expect.any(Object) } });
  });

  it('pages with starting_after, says has_more on a full final page, and restarts on an unknown cursor', async () => {
    const db = t.app.get(DataSource);
    const audit = t.app.get(AuditService);
    await db.transaction(async (em) => {
      for (let i = 0; i < 3; i++) {
        await audit.append(em, workspaceId, {
          subject_type: 'Agent',
          subject_id: agentId,
          action: 'agent.updated',
          trace_id: `page-${i}`,
          snapshot: { i },
          actor: { type: 'person', id: 'owner' },
        });
      }
    });
    const all = (await list('?limit=200').expect(200)).body.data as { id: string; actor: unknown }[];
    const total = all.length;
    expect(total).toBeGreaterThanOrEqual(6);
    expect(all[0].actor).toEqual({ type: 'person', id: 'owner' });
    const first = (await list('?limit=3').expect(200)).body;
    expect(first).toMatchObject({ has_more: true, next_cursor: all[2].id });
    const second = (await list(`?limit=3&starting_after=${first.next_cursor}`).expect(200)).body;
    expect(second.data.map((e: { id: string }) => e.id)).toEqual(all.slice(3, 6).map((e) => e.id));
    expect(second.has_more).toBe(true);
    // A page that fills to `limit` says has_more even when nothing follows.
    expect((await list(`?limit=${total}`).expect(200)).body).toMatchObject({ has_more: true, next_cursor: all[total - 1].id });
    expect((await list(`?limit=3&starting_after=${all[total - 1].id}`).expect(200)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    const restarted = (await list(`?limit=2&starting_after=00000000-0000-4000-8000-000000000000`).expect(200)).body;
    expect(restarted.data.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    // limit clamps instead of failing.
    expect((await list('?limit=0').expect(200)).body.data).toHaveLength(1);
    expect((await list('?limit=5000').expect(200)).body.data).toHaveLength(total);
  });

  it('reads one event, and answers 404 across workspaces and 401 without a token', async () => {
    const [latest] = (await list('?limit=1').expect(200)).body.data;
    expect((await http().get(`/control/v1/workspaces/audit/audit_events/${latest.id}`).set(bearer(viewer)).expect(200)).body).toEqual({
      data: latest,
    });
    await http().get(`/control/v1/workspaces/elsewhere/audit_events/${latest.id}`).set(bearer(outsider)).expect(404);
    await list('', outsider).expect(404);
    await http().get(`/control/v1/workspaces/audit/audit_events/${workspaceId}`).set(bearer(viewer)).expect(404);
    const res = await http().get('/control/v1/workspaces/audit/audit_events').expect(401);
    expect(res.body.error.code).toBe('identity_token_required');
  });

  it('refuses to rewrite or delete history', async () => {
    const db = t.app.get(DataSource);
    await expect(db.query(`DELETE FROM audit_events WHERE workspace_id = $1`, [workspaceId])).rejects.toThrow(/append-only/);
    await expect(db.query(`UPDATE audit_events SET action = 'x' WHERE workspace_id = $1`, [workspaceId])).rejects.toThrow(/append-only/);
  });
});
