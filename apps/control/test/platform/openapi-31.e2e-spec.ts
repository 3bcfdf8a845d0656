import request from 'supertest';
import { openApi31Problems, suiteStack } from '@bursar/testing';
import { CONTROL_OPENAPI_PATH } from '../../src/control.openapi';
import { startControlTestApp } from '../control-test-app';

describe('the control OpenAPI document', () => {
  const t = suiteStack(() => startControlTestApp('openapi_31'));

  it('is valid OpenAPI 3.1: official schema, resolvable refs, strict JSON Schema 2020-12, no nullable', async () => {
    const document = (await request(t.app.getHttpServer()).get(CONTROL_OPENAPI_PATH).expect(200)).body;
    expect(document.openapi).toBe('3.1.0');
    expect(await openApi31Problems(document)).toEqual([]);
    expect(document.components.schemas.ControlError.properties.error.properties.code.type).toEqual(['string', 'null']);
  });
});
