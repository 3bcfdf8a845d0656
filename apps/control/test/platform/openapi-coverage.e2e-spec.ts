import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { startControlTestApp } from '../control-test-app';

interface Operation {
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: { 'application/json'?: { schema?: { properties?: Record<string, unknown> } } } }>;
}

/** Routes whose OpenAPI description this file holds to account: each answer has a schema, each list its paging. */
const ROUTES: [string, string][] = [
  ['post', '/control/v1/agent/budgets'],
  ['get', '/control/v1/agent/budgets/{id}'],
  ['post', '/control/v1/agent/budgets/{id}/close'],
  ['post', '/control/v1/agent/spend_tokens'],
  ['get', '/control/v1/agent/spend_tokens/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/budgets'],
  ['get', '/control/v1/workspaces/{workspace_slug}/budgets/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/spend_tokens'],
  ['get', '/control/v1/workspaces/{workspace_slug}/spend_tokens/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_events'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_events/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_log/entries'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_log/checkpoints'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_log/checkpoints/latest'],
  ['post', '/control/v1/workspaces/{workspace_slug}/audit_log/checkpoints'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_log/proofs/inclusion'],
  ['get', '/control/v1/workspaces/{workspace_slug}/audit_log/proofs/consistency'],
  ['get', '/control/v1/workspaces/{workspace_slug}/funds'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints'],
  ['post', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}'],
  ['post', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}/rotate'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}/deliveries'],
  ['post', '/control/v1/agent/actions'],
  ['post', '/control/v1/agent/actions/simulate'],
  ['get', '/control/v1/agent/actions/{id}'],
  ['post', '/control/v1/agent/actions/{id}/complete'],
  ['post', '/control/v1/agent/actions/{id}/fail'],
  ['post', '/control/v1/agent/payment_intents'],
  ['post', '/control/v1/agent/payment_intents/simulate'],
  ['get', '/control/v1/agent/payment_intents/{id}'],
  ['post', '/control/v1/agent/payment_intents/{id}/complete'],
  ['post', '/control/v1/agent/payment_intents/{id}/fail'],
  ['post', '/control/v1/cosign/verify'],
  ['post', '/control/v1/cosign/consume'],
  ['get', '/control/v1/workspaces/{workspace_slug}/action_intents'],
  ['get', '/control/v1/workspaces/{workspace_slug}/action_intents/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/action_intents/{id}/impact'],
  ['post', '/control/v1/workspaces/{workspace_slug}/action_intents/{id}/approve'],
  ['post', '/control/v1/workspaces/{workspace_slug}/action_intents/{id}/deny'],
  ['get', '/control/v1/workspaces/{workspace_slug}/payment_intents'],
  ['get', '/control/v1/workspaces/{workspace_slug}/payment_intents/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/payment_intents/{id}/impact'],
  ['post', '/control/v1/workspaces/{workspace_slug}/payment_intents/{id}/approve'],
  ['post', '/control/v1/workspaces/{workspace_slug}/payment_intents/{id}/deny'],
  ['post', '/control/v1/workspaces/{workspace_slug}/policies'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policies'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policies/{id}'],
  ['patch', '/control/v1/workspaces/{workspace_slug}/policies/{id}'],
  ['post', '/control/v1/workspaces/{workspace_slug}/policy_modules'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policy_modules'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policy_modules/{name}'],
  ['patch', '/control/v1/workspaces/{workspace_slug}/policy_modules/{name}'],
  ['post', '/control/v1/workspaces/{workspace_slug}/policy_previews'],
  ['post', '/control/v1/workspaces/{workspace_slug}/policy_backtests'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policy_backtests'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}'],
  ['get', '/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}/changes'],
  ['post', '/v1/auth/signin'],
  ['post', '/v1/auth/refresh'],
  ['post', '/v1/auth/verify_mfa'],
  ['post', '/v1/auth/verify_email'],
];

/** Authorizations answer 201 allowed or 202 held (403 denied is not a success); every other route has one success. Keyed by path, or by `method path`. */
const SUCCESSES: Record<string, string[]> = {
  '/control/v1/agent/actions': ['201', '202'],
  '/control/v1/agent/payment_intents': ['201', '202'],
  // A small window completes at once (201); a larger one is queued (202).
  'post /control/v1/workspaces/{workspace_slug}/policy_backtests': ['201', '202'],
};

describe('the OpenAPI document', () => {
  let paths: Record<string, Record<string, Operation>>;
  let schemas: Record<string, { properties?: Record<string, { type?: string }> }>;

  const t = suiteStack(() => startControlTestApp('openapi'));
  beforeAll(async () => {
    ({ paths, components: { schemas } } = (await request(t.app.getHttpServer()).get('/control/v1/openapi.json').expect(200)).body);
  });

  it.each(ROUTES)('describes the answer of %s %s, and its paging when a list', (method, path) => {
    const operation = paths[path]?.[method];
    expect(operation).toBeDefined();
    const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    expect(success.map(([status]) => status)).toEqual(SUCCESSES[`${method} ${path}`] ?? SUCCESSES[path] ?? [expect.any(String)]);
    for (const [, answer] of success) expect(answer.content?.['application/json']?.schema?.properties).toHaveProperty('data');
    const properties = success[0][1].content?.['application/json']?.schema?.properties ?? {};
    if ('has_more' in properties) {
      // An approval queue also sums what its filters match.
      expect(Object.keys(properties).filter((name) => name !== 'summary')).toEqual(['data', 'has_more', 'next_cursor']);
      // Most lists take the cursor back as starting_after; the audit log's name theirs (after, cursor).
      const cursor = /Pass back as (\w+)/.exec((properties.next_cursor as { description?: string }).description ?? '')?.[1];
      expect(operation.parameters?.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(expect.arrayContaining(['limit', cursor]));
    }
  });

  it('pages every list it describes', () => {
    const lists = ['budgets', 'spend_tokens', 'audit_events', 'webhook_endpoints', 'webhook_endpoints/{id}/deliveries', 'action_intents', 'payment_intents', 'policies', 'policy_modules', 'audit_log/entries', 'audit_log/checkpoints'];
    for (const list of lists) {
      const schema = paths[`/control/v1/workspaces/{workspace_slug}/${list}`].get.responses['200'].content?.['application/json']?.schema;
      expect(schema?.properties).toHaveProperty('has_more');
    }
  });

  it('names the credential and the shared failures of every agent and workspace route', () => {
    const operations = Object.entries(paths).flatMap(([path, item]) => Object.values(item).map((op) => ({ path, op: op as Operation & { security?: unknown[] } })));
    const agent = operations.filter(({ path }) => path.startsWith('/control/v1/agent/'));
    const person = operations.filter(({ path }) => path.startsWith('/control/v1/workspaces'));
    expect(agent.length).toBeGreaterThan(5);
    expect(person.length).toBeGreaterThan(20);
    for (const { op } of agent) {
      expect(op.security).toEqual([{ agent_key: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '422', '429']));
    }
    for (const { op } of person) {
      expect(op.security).toEqual([{ identity_token: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '404', '422', '429']));
    }
    expect(schemas.ControlError).toBeDefined();
  });

  it('describes the authorization statuses, the failed cosignature check and the key set', () => {
    for (const base of ['actions', 'payment_intents']) {
      const statuses = paths[`/control/v1/agent/${base}`].post.responses;
      expect(statuses['403'].content?.['application/json']?.schema?.properties).toHaveProperty('decision');
      expect(statuses['202'].content?.['application/json']?.schema?.properties).toHaveProperty('data');
    }
    expect(paths['/control/v1/cosign/verify'].post.responses['422'].content?.['application/json']?.schema?.properties).toHaveProperty('data');
    expect(paths['/.well-known/jwks.json'].get.responses['200'].content?.['application/json']?.schema?.properties).toHaveProperty('keys');
  });

  it('types money as integer minor units', () => {
    const models = ['ActionIntentSchema', 'PaymentIntentSchema', 'RemedySchema', 'IntentImpactSchema', 'ValidCosignatureSchema', 'PolicySchema', 'PolicyRuleSchema', 'BudgetSchema', 'OpenBudgetDto', 'SpendTokenSchema', 'MintSpendTokenDto', 'FundsSchema', 'CurrencyFundsSchema', 'AgentFundsSchema'];
    for (const model of models) {
      const cents = Object.entries(schemas[model].properties ?? {}).filter(([name]) => name.endsWith('_cents'));
      expect(cents.length).toBeGreaterThan(0);
      // A nullable amount is `type: ['integer', 'null']` (OpenAPI 3.1); money itself is still an integer.
      for (const [name, property] of cents) {
        expect({ model, name, type: [property.type].flat().filter((t) => t !== 'null') }).toEqual({ model, name, type: ['integer'] });
      }
    }
  });
});
