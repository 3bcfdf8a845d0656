import request from 'supertest';
import { LedgerTestApp, startLedgerTestApp } from './ledger-test-app';

describe('OpenAPI document of the conventions', () => {
  let t: LedgerTestApp;
  let doc: {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: object }> }>>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    info: { description: string };
  };

  beforeAll(async () => {
    t = await startLedgerTestApp('openapi');
    doc = (await request(t.app.getHttpServer()).get('/ledger/v1/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  const headerNames = (path: string, method: string) =>
    (doc.paths[path][method].parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);

  it('documents X-Ledger-Id on ledger-scoped routes only', () => {
    expect(headerNames('/ledger/v1/events', 'get')).toContain('X-Ledger-Id');
    expect(headerNames('/ledger/v1/ledgers', 'get')).not.toContain('X-Ledger-Id');
  });

  it('documents idempotency keys, rate-limit headers and the error envelope', () => {
    expect(headerNames('/ledger/v1/oauth_clients', 'post')).toContain('Idempotency-Key');
    const list = doc.paths['/ledger/v1/ledgers'].get.responses;
    expect(list['200'].headers).toHaveProperty('X-RateLimit-Remaining');
    expect(list['429'].headers).toHaveProperty('Retry-After');
    expect(doc.components.schemas.ErrorEnvelope.properties).toHaveProperty('error');
    expect(doc.components.schemas.CreateLedgerDto.properties).toHaveProperty('mode');
    expect(doc.info.description).toMatch(/fails open/);
    expect(JSON.stringify(doc.paths['/ledger/v1/ledgers/{id}'].get.responses['200'])).toContain('#/components/schemas/LedgerResponse');
    expect(doc.components.schemas.CapabilitiesResponse.properties).toHaveProperty('organization_model');
  });
});
