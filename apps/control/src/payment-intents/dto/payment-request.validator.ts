import { fastValidator, field, FieldRule } from '@bursar/service-kit';
import { PaymentRequestDto, PaymentSimulationDto } from './payment-request.dto';

/** Rules as PaymentSimulationDto's decorators. */
const SIMULATION: Record<string, FieldRule> = {
  budget_id: field.uuid,
  amount_cents: field.integer(1, Number.MAX_SAFE_INTEGER),
  counterparty: field.optional(field.text(1, 500)),
  spend_token_id: field.optional(field.uuid),
  trace_id: field.optional(field.text(1, 200)),
  metadata: field.optional(field.object),
};

/** The fast path of POST /agent/payment_intents/simulate. */
export const acceptPaymentSimulation = fastValidator(PaymentSimulationDto, SIMULATION);

/** The fast path of POST /agent/payment_intents. */
export const acceptPaymentRequest = fastValidator(PaymentRequestDto, {
  ...SIMULATION,
  idempotency_key: field.text(1, 255),
  decision_context: field.optional(field.object),
});
