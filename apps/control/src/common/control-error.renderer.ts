import { ErrorRenderer, NormalizedError } from '@bursar/errors';

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
 * Control envelope: `{error: {message, code}}`, code null unless the contract defines one for the
 * failure, plus any fields the code documents (`ceiling_cents`, `requested_cents`). No request id
 * or livemode in the body: the `X-Request-Id` header carries the id.
 */
export class ControlErrorRenderer implements ErrorRenderer {
  render(error: NormalizedError) {
    const status = controlStatus(error);
    const message = error.kind === 'internal' ? INTERNAL_MESSAGE : error.message;
    return { status, body: { error: { message, code: error.code, ...error.fields } } };
  }
}
