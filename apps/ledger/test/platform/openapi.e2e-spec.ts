import request from 'supertest';
import { ledgerAppStack } from '../ledger-test-app';

describe('OpenAPI document of the conventions', () => {
  const t = ledgerAppStack('openapi');
  let doc: {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: object }> }>>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    info: { description: string };
  };

  beforeAll(async () => {
    doc = (await request(t.app.getHttpServer()).get('/ledger/v1/openapi.json').expect(200)).body;
  });

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

  it.each([
    ['/ledger/v1/account_templates', 'post', '201', 'AccountTemplateResponse'],
    ['/ledger/v1/account_templates', 'get', '200', 'AccountTemplateResponse'],
    ['/ledger/v1/account_templates/{name}', 'get', '200', 'AccountTemplateResponse'],
    ['/ledger/v1/period_closes', 'post', '201', 'PeriodCloseResponse'],
    ['/ledger/v1/period_closes', 'get', '200', 'PeriodCloseResponse'],
    ['/ledger/v1/period_closes/{id}', 'get', '200', 'PeriodCloseResponse'],
    ['/ledger/v1/period_closes/{id}/reopen', 'post', '200', 'PeriodCloseResponse'],
    ['/ledger/v1/reports/trial_balance', 'get', '200', 'TrialBalanceReport'],
    ['/ledger/v1/reports/balance_sheet', 'get', '200', 'BalanceSheetReport'],
    ['/ledger/v1/reports/income_statement', 'get', '200', 'IncomeStatementReport'],
    ['/ledger/v1/reports/cash_flow', 'get', '200', 'CashFlowReport'],
    ['/ledger/v1/oauth_clients/{id}', 'delete', '200', 'DeletedOauthClientResponse'],
    ['/ledger/v1/accounts', 'post', '201', 'AccountResponse'],
    ['/ledger/v1/accounts', 'get', '200', 'AccountResponse'],
    ['/ledger/v1/accounts/{id}', 'get', '200', 'AccountResponse'],
    ['/ledger/v1/accounts/{id}', 'patch', '200', 'AccountResponse'],
    ['/ledger/v1/accounts/{id}/balance', 'get', '200', 'BalanceResponse'],
    ['/ledger/v1/transactions', 'post', '201', 'TransactionResponse'],
    ['/ledger/v1/transactions', 'post', '200', 'TransactionResponse'],
    ['/ledger/v1/transactions', 'get', '200', 'TransactionResponse'],
    ['/ledger/v1/transactions/{id}', 'get', '200', 'TransactionResponse'],
    ['/ledger/v1/transactions/lookup', 'get', '200', 'TransactionResponse'],
    ['/ledger/v1/transactions/{id}/reverse', 'post', '201', 'TransactionResponse'],
    ['/ledger/v1/postings', 'get', '200', 'PostingResponse'],
    ['/ledger/v1/exports', 'post', '202', 'ExportResponse'],
    ['/ledger/v1/exports/{id}', 'get', '200', 'ExportResponse'],
    ['/ledger/v1/accounts/{id}/postings', 'get', '200', 'PostingResponse'],
    ['/ledger/v1/reconciliation_runs', 'post', '201', 'ReconciliationRunResponse'],
    ['/ledger/v1/reconciliation_runs', 'get', '200', 'ReconciliationRunResponse'],
    ['/ledger/v1/reconciliation_runs/{id}', 'get', '200', 'ReconciliationRunResponse'],
    ['/ledger/v1/sources/{id}/reconciliation_runs', 'post', '201', 'ReconciliationRunResponse'],
    ['/ledger/v1/sources', 'post', '201', 'SourceResponse'],
    ['/ledger/v1/sources', 'get', '200', 'SourceResponse'],
    ['/ledger/v1/sources/{id}', 'get', '200', 'SourceResponse'],
    ['/ledger/v1/sources/{id}', 'patch', '200', 'SourceResponse'],
    ['/ledger/v1/sources/{id}/external_transactions', 'post', '201', 'IngestResultResponse'],
    ['/ledger/v1/sources/{id}/inbound', 'post', '201', 'InboundEndpointResponse'],
    ['/ledger/v1/sources/{id}/inbound', 'delete', '200', 'InboundEndpointResponse'],
    ['/ledger/v1/inbound/sources/{token}', 'post', '200', 'InboundResultResponse'],
    ['/ledger/v1/external_transactions', 'get', '200', 'ExternalTransactionResponse'],
    ['/ledger/v1/external_transactions/{id}', 'get', '200', 'ExternalTransactionResponse'],
    ['/ledger/v1/external_transactions/{id}/matches', 'get', '200', 'ReconciliationMatchResponse'],
    ['/ledger/v1/external_transactions/{id}/ignore', 'post', '200', 'ExternalTransactionResponse'],
    ['/ledger/v1/external_transactions/{id}/match', 'post', '201', 'ReconciliationMatchResponse'],
    ['/ledger/v1/external_transactions/{id}/unmatch', 'post', '200', 'ExternalTransactionResponse'],
    ['/ledger/v1/postings/{id}/reconciliations', 'post', '200', 'PostingResponse'],
    ['/oauth/token', 'post', '200', 'TokenResponse'],
    ['/.well-known/oauth-authorization-server', 'get', '200', 'AuthorizationServerMetadataResponse'],
  ])('documents the response schema of %s %s', (path, method, status, schema) => {
    expect(JSON.stringify(doc.paths[path][method].responses[status])).toContain(`#/components/schemas/${schema}`);
    expect(Object.keys(doc.components.schemas[schema].properties ?? {}).length).toBeGreaterThan(2);
  });

  it('documents the statuses and lookup parameters of the transaction routes', () => {
    const responses = (path: string, method: string) => Object.keys(doc.paths[`/ledger/v1/transactions${path}`][method].responses);
    for (const path of ['', '/{id}/reverse', '/{id}/refund']) expect(responses(path, 'post')).toEqual(expect.arrayContaining(['200', '201']));
    expect(responses('/bulk', 'post')).toEqual(expect.arrayContaining(['201', '207']));
    expect(responses('/{id}', 'delete')).toContain('405');
    expect(responses('/{id}', 'delete')).not.toContain('200');
    const lookup = (doc.paths['/ledger/v1/transactions/lookup'].get.parameters ?? []) as { name: string; in: string; required?: boolean }[];
    for (const name of ['rail', 'kind', 'value']) expect(lookup).toContainEqual(expect.objectContaining({ name, in: 'query', required: true }));
  });

  it('documents the inbound push as signed, not bearer-authenticated, and the signed posting convention of manual matches', () => {
    const pushOp = doc.paths['/ledger/v1/inbound/sources/{token}'].post as { security?: unknown[]; parameters?: { name: string; in: string }[] };
    expect(pushOp.security ?? []).toEqual([]);
    expect(headerNames('/ledger/v1/inbound/sources/{token}', 'post')).toContain('Bursar-Inbound-Signature');
    expect(headerNames('/ledger/v1/inbound/sources/{token}', 'post')).not.toContain('X-Ledger-Id');
    expect(Object.keys(doc.paths['/ledger/v1/inbound/sources/{token}'].post.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(JSON.stringify(doc.paths['/ledger/v1/external_transactions/{id}/match'].post)).toContain('a credit -amount');
  });

  it('documents the bodies clients send to the OAuth routes', () => {
    expect(doc.components.schemas.CreateOauthClientDto.properties).toEqual(
      expect.objectContaining({ name: expect.anything(), mode: expect.anything(), scopes: expect.anything(), ledger_id: expect.anything() }),
    );
    expect(JSON.stringify(doc.paths['/oauth/token'].post)).toContain('application/x-www-form-urlencoded');
  });
});
