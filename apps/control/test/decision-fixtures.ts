import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { bearer, createAgent, seatMember } from './control-fixtures';
import { IdentifiedTestApp, startIdentifiedTestApp } from './control-test-app';

export const COSIGN_ISSUER = 'https://control.bursar.test';

/** An app with cosigning on and agent throttling out of the way of concurrency tests. */
export interface DecisionStack extends IdentifiedTestApp {
  owner: string;
  slug: string;
  workspaceId: string;
}

export async function startDecisionStack(label: string, env: Record<string, string> = {}): Promise<DecisionStack> {
  const app = await startIdentifiedTestApp(label, ['owner', 'member'], {
    COSIGN_ISSUER,
    AGENT_RATE_LIMIT_PER_MINUTE: '100000',
    WORKSPACE_RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
  const owner = await app.idp.token('owner');
  const slug = label.replace(/_/g, '-');
  const res = await request(app.t.app.getHttpServer()).post('/control/v1/workspaces').set(bearer(owner)).send({ name: label, slug }).expect(201);
  return { ...app, owner, slug, workspaceId: res.body.data.id };
}

/** A decision stack whose workspace also seats the person `member` with the member role; `member` is their token. */
export async function startStackWithMember(label: string): Promise<DecisionStack & { member: string }> {
  const s = await startDecisionStack(label);
  await seatMember(s.t.app, s.workspaceId, 'member', 'member');
  return { ...s, member: await s.idp.token('member') };
}

export interface TestAgent {
  id: string;
  key: string;
  budgetId: string;
  policyId: string | null;
}

/** An agent with one policy (none when `policy` is null) and one open budget. */
export async function agentWithPolicy(
  s: DecisionStack,
  policy: Record<string, unknown> | null,
  budgetCents = 100_000,
  agentFields: Record<string, unknown> = {},
): Promise<TestAgent> {
  const http = request(s.t.app.getHttpServer());
  const agent = await createAgent(s.t.app, s.owner, s.slug, { skip_starter_policy: true, ...agentFields });
  let policyId: string | null = null;
  if (policy) {
    const res = await request(s.t.app.getHttpServer())
      .post(`/control/v1/workspaces/${s.slug}/policies`)
      .set(bearer(s.owner))
      .send({ agent_id: agent.id, ...policy });
    if (res.status !== 201) throw new Error(`policy refused: ${JSON.stringify(res.body)}`);
    policyId = res.body.data.id;
  }
  const budget = await http.post('/control/v1/agent/budgets').set(bearer(agent.api_key)).send({ budget_cents: budgetCents }).expect(201);
  return { id: agent.id, key: agent.api_key, budgetId: budget.body.data.id, policyId };
}

let keySeq = 0;
export const newKey = () => `key-${process.pid}-${Date.now()}-${keySeq++}`;

export function act(app: INestApplication, agent: TestAgent, body: Record<string, unknown>, key: string | null = newKey()) {
  const req = request(app.getHttpServer()).post('/control/v1/agent/actions').set(bearer(agent.key));
  if (key !== null) req.set('Idempotency-Key', key);
  return req.send({ budget_id: agent.budgetId, ...body });
}

export function pay(app: INestApplication, agent: TestAgent, body: Record<string, unknown>) {
  return request(app.getHttpServer())
    .post('/control/v1/agent/payment_intents')
    .set(bearer(agent.key))
    .send({ budget_id: agent.budgetId, idempotency_key: newKey(), ...body });
}

export function simulate(app: INestApplication, agent: TestAgent, body: Record<string, unknown>) {
  return request(app.getHttpServer()).post('/control/v1/agent/actions/simulate').set(bearer(agent.key)).send({ budget_id: agent.budgetId, ...body });
}

export async function readBudget(app: INestApplication, agent: TestAgent) {
  const res = await request(app.getHttpServer()).get(`/control/v1/agent/budgets/${agent.budgetId}`).set(bearer(agent.key)).expect(200);
  return res.body.data as { spent_cents: number; remaining_cents: number; status: string };
}

