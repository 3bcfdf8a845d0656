import request from 'supertest';
import { DataSource } from 'typeorm';
import { expectBurstFannedOutOnce, expectLateCommitDelivered, RelayProbe, suiteStack, webhookTestEnv } from '@bursar/testing';
import { WebhookEventsService } from '../../src/webhooks/webhook-events.service';
import { bearer, createWorkspace } from '../control-fixtures';
import { startIdentifiedTestApp } from '../control-test-app';

/**
 * Control's outbox relay when commits land out of order: an event whose transaction drew an
 * earlier seq and committed later is still fanned out, once. (Control serves no events feed; its
 * events reach clients only through this relay.)
 */
describe('Control webhook relay with late commits', () => {
  let db: DataSource;
  let workspaceId: string;

  const s = suiteStack(() => startIdentifiedTestApp('relay_order', ['owner'], { ...webhookTestEnv('control-relay-order') }), 30_000);
  beforeAll(async () => {
    db = s.t.app.get(DataSource);
    const owner = await s.idp.token('owner');
    workspaceId = (await createWorkspace(s.t.app, owner, { name: 'Relay', slug: 'relay' })).id;
    await request(s.t.app.getHttpServer())
      .post('/control/v1/workspaces/relay/webhook_endpoints')
      .set(bearer(owner))
      .send({ url: 'http://127.0.0.1:9/hook' })
      .expect(201);
  }, 30_000);

  const probe = (): RelayProbe => ({
    db,
    write: (m) => s.t.app.get(WebhookEventsService).emit(m, workspaceId, 'budget.low', {}),
    unrelayedCount: async () =>
      (await db.query(`SELECT count(*)::int AS n FROM webhook_events WHERE workspace_id = $1 AND relayed_at IS NULL`, [workspaceId]))[0].n,
  });

  it('delivers an earlier-seq event that commits after the relay has handled a later one', () => expectLateCommitDelivered(probe()));

  it('fans out every event exactly once while many commits land out of order', () => expectBurstFannedOutOnce(probe()), 30_000);
});
