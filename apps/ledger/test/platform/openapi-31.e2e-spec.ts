import request from 'supertest';
import { openApi31Problems } from '@bursar/testing';
import { LEDGER_OPENAPI_PATH } from '../../src/ledger.openapi';
import { ledgerAppStack } from '../ledger-test-app';

describe('the ledger OpenAPI document', () => {
  const t = ledgerAppStack('openapi_31');

  it('is valid OpenAPI 3.1: official schema, resolvable refs, strict JSON Schema 2020-12, no nullable', async () => {
    const document = (await request(t.app.getHttpServer()).get(LEDGER_OPENAPI_PATH).expect(200)).body;
    expect(document.openapi).toBe('3.1.0');
    expect(await openApi31Problems(document)).toEqual([]);
    // A nullable field keeps saying so, the 3.1 way.
    expect(document.components.schemas.AccountResponse.properties.closed_at.type).toEqual(['string', 'null']);
  });
});

describe('the OpenAPI 3.1 check itself', () => {
  const minimal = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };

  it('reports 3.0 nullable, an unknown keyword, a dangling $ref and a malformed parameter', async () => {
    expect(await openApi31Problems({ ...minimal, components: { schemas: { A: { type: ['string', 'null'] } } } })).toEqual([]);
    const broken = {
      ...minimal,
      paths: { '/x': { get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'string' }, examples: ['a'] }], responses: { '200': { description: 'ok' } } } } },
      components: {
        schemas: {
          A: { type: 'object', properties: { at: { type: 'string', nullable: true } } },
          C: { type: 'object', properties: { b: { $ref: '#/components/schemas/Missing' } } },
          B: { type: 'string', minimumLength: 1 },
        },
      },
    };
    const problems = (await openApi31Problems(broken)).join('\n');
    expect(problems).toMatch(/nullable keyword at #\/components\/schemas\/A\/properties\/at/);
    expect(problems).toMatch(/components\.schemas\.B: strict mode: unknown keyword: "minimumLength"/);
    expect(problems).toMatch(/unresolvable \$ref: .*Missing/);
    expect(problems).toMatch(/parameters\/0\/examples.*must be object/);
  });
});
