import request from 'supertest';
import { DataSource } from 'typeorm';
import { expectBurstFannedOutOnce, expectLateCommitDelivered, RelayProbe, webhookTestEnv } from '@bursar/testing';
import { LedgerScope } from '../../src/common/mode';
import { EventsService } from '../../src/events/events.service';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { ledgerAppStack } from '../ledger-test-app';

/**
 * The outbox relay when commits land out of order: it takes every unrelayed row it can see, so an
 * event whose transaction drew an earlier seq and committed later is still fanned out, once.
 */
describe('Ledger webhook relay with late commits', () => {
  const t = ledgerAppStack('relay_order', webhookTestEnv('ledger-relay-order'));
  let db: DataSource;
  let scope: LedgerScope;

  beforeAll(async () => {
    db = t.app.get(DataSource);
    const client = await LedgerFixtures.of(t).client();
    scope = { organizationId: client.organizationId, mode: 'test', ledgerId: client.ledgerId };
    await request(t.app.getHttpServer())
      .post('/ledger/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${await accessToken(t, client)}`)
      .send({ url: 'http://127.0.0.1:9/hook' })
      .expect(201);
  });

  const probe = (): RelayProbe => ({
    db,
    write: (m) => t.app.get(EventsService).record(m, scope, 'test.relay', null, {}),
    unrelayedCount: async () =>
      (await db.query(`SELECT count(*)::int AS n FROM events WHERE ledger_id = $1 AND relayed_at IS NULL`, [scope.ledgerId]))[0].n,
  });

  it('delivers an earlier-seq event that commits after the relay has handled a later one', () => expectLateCommitDelivered(probe()));

  it('fans out every event exactly once while many commits land out of order', () => expectBurstFannedOutOnce(probe()), 30_000);
});
