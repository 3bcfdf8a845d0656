import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ActionRequestDto } from '../actions/dto/action-request.dto';
import { acceptActionRequest } from '../actions/dto/action-request.validator';
import { ConsumeCosignatureDto, VerifyCosignatureDto } from '../cosign/dto/cosignature.dto';
import { acceptConsumeCosignature, acceptVerifyCosignature } from '../cosign/dto/cosignature.validator';
import { PaymentRequestDto, PaymentSimulationDto } from '../payment-intents/dto/payment-request.dto';
import { acceptPaymentRequest, acceptPaymentSimulation } from '../payment-intents/dto/payment-request.validator';

/** What the global ValidationPipe does with a body: the fast paths must never disagree with it. */
function fullValidation(dto: new () => object, body: unknown) {
  const instance = plainToInstance(dto, body);
  return { instance, errors: validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }) };
}

const BUDGET = '0b5c7f6e-3d1a-4c2b-9e8f-1a2b3c4d5e6f';
const cases: [string, new () => object, (body: unknown) => object | undefined, Record<string, unknown>][] = [
  ['action', ActionRequestDto, acceptActionRequest, { budget_id: BUDGET, action_type: 'email.send', resource: 'acme', cost_cents: 5, metadata: { a: { b: [1, 'x'] } }, trace_id: 't-1' }],
  ['payment simulation', PaymentSimulationDto, acceptPaymentSimulation, { budget_id: BUDGET, amount_cents: 100, counterparty: 'acme', spend_token_id: BUDGET, trace_id: 't', metadata: { category: 'office' } }],
  ['payment', PaymentRequestDto, acceptPaymentRequest, { budget_id: BUDGET, amount_cents: 100, counterparty: 'acme', idempotency_key: 'k-1', metadata: {}, decision_context: { run: 7 } }],
  ['verify', VerifyCosignatureDto, acceptVerifyCosignature, { authorization: 'a.b.c' }],
  ['consume', ConsumeCosignatureDto, acceptConsumeCosignature, { authorization: 'a.b.c', consumed_by: 'executor' }],
];

/** Values every field is tried with, valid for some fields and not for others. */
const VARIANTS: unknown[] = [
  undefined, null, '', 'x', 'x'.repeat(200), 'x'.repeat(201), 'x'.repeat(256), '\u{1F600}'.repeat(200), 'Email.Send', 'email..send', 'a_b.c1',
  BUDGET, BUDGET.toUpperCase(), '0b5c7f6e-3d1a-0c2b-9e8f-1a2b3c4d5e6f', 'not-a-uuid', 0, 1, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, '100', true,
  [], [1], {}, { a: 1 }, JSON.parse('{"__proto__": {"x": 1}}'), { deep: JSON.parse('{"__proto__": 1}') },
];

describe.each(cases)('fast validator of the %s body', (_name, dto, accept, valid) => {
  it('accepts the common shape exactly as class-transformer and class-validator do', () => {
    const accepted = accept(valid);
    const { instance, errors } = fullValidation(dto, valid);
    expect(errors).toEqual([]);
    expect(accepted).toBeInstanceOf(dto);
    expect(accepted).toEqual(instance);
  });

  it('accepts only what the full validation accepts, as the same instance, field by field', () => {
    for (const field of [...Object.keys(valid), 'unknown_field', '__proto__']) {
      for (const value of VARIANTS) {
        const body = field === '__proto__' ? JSON.parse(`{"__proto__": ${JSON.stringify(value) ?? 'null'}}`) : { ...valid, [field]: value };
        const accepted = accept(body);
        if (!accepted) continue;
        const { instance, errors } = fullValidation(dto, body);
        expect({ field, value, errors }).toEqual({ field, value, errors: [] });
        expect(accepted).toEqual(instance);
      }
    }
  });

  it('leaves anything unusual to the full validation', () => {
    for (const body of ['text', [], null, { ...valid, unknown_field: 1 }, { ...valid, metadata: null }]) expect(accept(body)).toBeUndefined();
  });
});
