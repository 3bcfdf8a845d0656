import { ErrorRenderer, NormalizedError, statusHint } from '@bursar/errors';

const INTERNAL_MESSAGE = 'Something went wrong on our side';

/**
 * The reference's codeless statuses: 400 for an unreadable body, a missing required field or a bad
 * query parameter; 422 for a body value that is present but wrong.
 */
function controlStatus(error: NormalizedError): number {
  if (error.kind === 'malformed_body') return 400;
  if (error.kind === 'validation') return error.badBodyValue ? 422 : 400;
  return error.status;
}

/**
 * A dependency briefly out (database down or refusing, pool exhausted, a write lost to a concurrent
 * one past its retries). The contract leaves a plain 503's code open, so it carries one in the style
 * of its `*_unavailable` codes, and a client can tell it from a 503 it must not retry blindly
 * (`identity_not_configured`).
 */
const SERVICE_UNAVAILABLE_CODE = 'service_unavailable';

/**
 * Control envelope: `{error: {message, code, hint}}`, code null only where the reference names the status
 * codeless (400, 404, 422 refusals, 500), plus any fields the code documents (`ceiling_cents`,
 * `requested_cents`). `param` names the offending field and `details.fields` maps each failing field to its
 * messages, so a form can show a refusal next to its field. `hint` says what to change; the reference SDK reads it when present. No request id or livemode in the body: the `X-Request-Id` header carries the id.
 */
export class ControlErrorRenderer implements ErrorRenderer {
  render(error: NormalizedError) {
    const status = controlStatus(error);
    const message = error.kind === 'internal' ? INTERNAL_MESSAGE : error.message;
    const code = error.code ?? (status === 503 ? SERVICE_UNAVAILABLE_CODE : null);
    const hint = error.hint ?? statusHint(status);
    const field = { ...(error.param !== undefined && { param: error.param }), ...(error.details !== undefined && { details: error.details }) };
    return { status, body: { error: { message, code, hint, ...field, ...error.fields } } };
  }
}
