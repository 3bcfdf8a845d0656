import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { pollUntil, terminateSessionsUntil } from '@bursar/testing';
import { agentWithPolicy, DecisionStack, pay, readBudget, startDecisionStack, TestAgent } from '../decision-fixtures';

/** What a Postgres restart does to control's connections, done from the test with `pg_terminate_backend`. */
describe('Control when Postgres ends its connections', () => {
  let s: DecisionStack;
  let agent: TestAgent;
  let admin: Client;

  beforeAll(async () => {
    s = await startDecisionStack('connection_loss');
    agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 10_000_000);
    admin = new Client({ connectionString: s.t.settings.CONTROL_DATABASE_URL, application_name: 'connection-loss-test' });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await s.close();
  });

  it('answers authorizations 201 or 503 service_unavailable, never 500, while its connections end again and again, and stays up', async () => {
    const answers: request.Response[] = [];
    const keys: string[] = [];
    const until = Date.now() + 3_000;
    const authorizer = async () => {
      while (Date.now() < until) {
        const key = randomUUID();
        keys.push(key);
        answers.push(await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'acme', idempotency_key: key }));
      }
    };
    const [ended] = await Promise.all([terminateSessionsUntil(admin, 'bursar-control', until), ...Array.from({ length: 8 }, authorizer)]);
    expect(ended).toBeGreaterThan(0);
    const wrong = answers.filter((r) => r.status !== 201 && !(r.status === 503 && r.body.error?.code === 'service_unavailable'));
    expect(wrong.map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
    expect(answers.filter((r) => r.status === 201).length).toBeGreaterThan(0);

    await pollUntil(async () => (await request(s.t.app.getHttpServer()).get('/readyz')).status, (st) => st === 200, 10_000, 50);
    // Every refused key can be sent again; the budget holds exactly what the allowed intents reserved.
    for (const key of keys) {
      await pollUntil(async () => (await pay(s.t.app, agent, { amount_cents: 100, counterparty: 'acme', idempotency_key: key })).status, (st) => st === 201 || st === 200, 10_000, 50);
    }
    const budget = await readBudget(s.t.app, agent);
    expect(10_000_000 - budget.remaining_cents).toBe(100 * keys.length);
  }, 60_000);
});
