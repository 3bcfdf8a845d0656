import request from 'supertest';
import { ControlTestApp, startControlTestApp } from './control-test-app';

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
  ['get', '/control/v1/workspaces/{workspace_slug}/funds'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints'],
  ['post', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}'],
  ['post', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}/rotate'],
  ['get', '/control/v1/workspaces/{workspace_slug}/webhook_endpoints/{id}/deliveries'],
  ['post', '/v1/auth/signin'],
  ['post', '/v1/auth/refresh'],
  ['post', '/v1/auth/verify_mfa'],
  ['post', '/v1/auth/verify_email'],
];

describe('the OpenAPI document', () => {
  let t: ControlTestApp;
  let paths: Record<string, Record<string, Operation>>;
  let schemas: Record<string, { properties?: Record<string, { type?: string }> }>;

  beforeAll(async () => {
    t = await startControlTestApp('openapi');
    ({ paths, components: { schemas } } = (await request(t.app.getHttpServer()).get('/control/v1/openapi.json').expect(200)).body);
  });
  afterAll(() => t.close());

  it.each(ROUTES)('describes the answer of %s %s, and its paging when a list', (method, path) => {
    const operation = paths[path]?.[method];
    expect(operation).toBeDefined();
    const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    expect(success).toHaveLength(1);
    const properties = success[0][1].content?.['application/json']?.schema?.properties ?? {};
    expect(properties).toHaveProperty('data');
    if ('has_more' in properties) {
      expect(Object.keys(properties)).toEqual(['data', 'has_more', 'next_cursor']);
      expect(operation.parameters?.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
        expect.arrayContaining(['limit', 'starting_after']),
      );
    }
  });

  it('pages every list it describes', () => {
    const lists = ['budgets', 'spend_tokens', 'audit_events', 'webhook_endpoints', 'webhook_endpoints/{id}/deliveries'];
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

  it('types money as integer minor units', () => {
    const models = ['BudgetSchema', 'OpenBudgetDto', 'SpendTokenSchema', 'MintSpendTokenDto', 'FundsSchema', 'CurrencyFundsSchema', 'AgentFundsSchema'];
    for (const model of models) {
      const cents = Object.entries(schemas[model].properties ?? {}).filter(([name]) => name.endsWith('_cents'));
      expect(cents.length).toBeGreaterThan(0);
      for (const [name, property] of cents) expect({ model, name, type: property.type }).toEqual({ model, name, type: 'integer' });
    }
  });
});
