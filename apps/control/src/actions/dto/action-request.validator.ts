import { fastValidator, field } from '@bursar/service-kit';
import { ACTION_TYPE_PATTERN, ActionRequestDto } from './action-request.dto';

/** The fast path of POST /agent/actions and /agent/actions/simulate (rules as ActionRequestDto's decorators). */
export const acceptActionRequest = fastValidator(ActionRequestDto, {
  budget_id: field.uuid,
  action_type: field.text(1, 200, ACTION_TYPE_PATTERN),
  resource: field.optional(field.text(1, 500)),
  cost_cents: field.optional(field.integer(0, Number.MAX_SAFE_INTEGER)),
  metadata: field.optional(field.object),
  trace_id: field.optional(field.text(1, 200)),
});
