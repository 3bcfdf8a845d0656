import type { Request } from 'express';
import { NormalizedError } from '@bursar/errors';
import { LedgerErrorRenderer } from './ledger-error.renderer';

const renderer = new LedgerErrorRenderer('https://docs.example/errors');
const req = { id: 'req_1', livemode: true } as unknown as Request;

/** Every codeless failure a route can raise, by kind and status, as normalizeError hands it over. */
const codeless: NormalizedError[] = [
  ...[400, 401, 402, 403, 404, 405, 406, 409, 413, 415, 418, 422, 429, 500, 502, 503].map(
    (status): NormalizedError => ({ status, code: null, message: `plain ${status}`, kind: 'http' }),
  ),
  { status: 500, code: null, message: 'x', kind: 'internal', hint: 'Retry later' },
  { status: 503, code: null, message: 'x', kind: 'unavailable', hint: 'Retry shortly' },
];

describe('LedgerErrorRenderer', () => {
  it.each(codeless.map((e) => [`${e.kind} ${e.status}`, e] as const))('renders %s with every field the contract names', (_, error) => {
    const { body } = renderer.render(error, req) as { body: { error: Record<string, unknown>; livemode: boolean; request_id: string } };
    expect(body.error).toEqual(
      expect.objectContaining({
        code: expect.stringMatching(/^[a-z_]+$/),
        message: expect.stringMatching(/\S/),
        hint: expect.stringMatching(/\S{3,}/),
        docs_url: `https://docs.example/errors#${String(body.error.code)}`,
        request_id: 'req_1',
      }),
    );
    expect([body.livemode, body.request_id]).toEqual([true, 'req_1']);
  });

  it('keeps a specific hint over the common code’s', () => {
    const { body } = renderer.render({ status: 400, code: null, message: 'm', kind: 'validation', hint: 'Add `id`' }, req) as {
      body: { error: Record<string, unknown> };
    };
    expect(body.error).toMatchObject({ code: 'invalid_request', hint: 'Add `id`' });
  });
});
