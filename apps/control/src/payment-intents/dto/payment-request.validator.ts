import { fastValidator, FieldRule, integer, object, optional, text, uuid } from '../../common/fast-validation';
import { PaymentRequestDto, PaymentSimulationDto } from './payment-request.dto';

/** Rules as PaymentSimulationDto's decorators. */
const SIMULATION: Record<string, FieldRule> = {
  budget_id: uuid,
  amount_cents: integer(1, Number.MAX_SAFE_INTEGER),
  counterparty: optional(text(1, 500)),
  spend_token_id: optional(uuid),
  trace_id: optional(text(1, 200)),
  metadata: optional(object),
};

/** The fast path of POST /agent/payment_intents/simulate. */
export const acceptPaymentSimulation = fastValidator(PaymentSimulationDto, SIMULATION);

/** The fast path of POST /agent/payment_intents. */
export const acceptPaymentRequest = fastValidator(PaymentRequestDto, { ...SIMULATION, idempotency_key: text(1, 255), decision_context: optional(object) });
