import { fastValidator, integer, object, optional, text, uuid } from '../../common/fast-validation';
import { ACTION_TYPE_PATTERN, ActionRequestDto } from './action-request.dto';

/** The fast path of POST /agent/actions and /agent/actions/simulate (rules as ActionRequestDto's decorators). */
export const acceptActionRequest = fastValidator(ActionRequestDto, {
  budget_id: uuid,
  action_type: text(1, 200, ACTION_TYPE_PATTERN),
  resource: optional(text(1, 500)),
  cost_cents: optional(integer(0, Number.MAX_SAFE_INTEGER)),
  metadata: optional(object),
  trace_id: optional(text(1, 200)),
});
