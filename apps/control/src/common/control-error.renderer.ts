import { ErrorRenderer, NormalizedError } from '@bursar/errors';

const INTERNAL_MESSAGE = 'Something went wrong on our side';

/**
 * Control envelope: `{error: {message, code}}`, code null unless the contract defines one for the
 * failure, plus any fields the code documents (`ceiling_cents`, `requested_cents`). No request id
 * or livemode in the body: the `X-Request-Id` header carries the id.
 */
export class ControlErrorRenderer implements ErrorRenderer {
  render(error: NormalizedError) {
    const status = error.kind === 'validation' || error.kind === 'malformed_body' ? 400 : error.status;
    const message = error.kind === 'internal' ? INTERNAL_MESSAGE : error.message;
    return { status, body: { error: { message, code: error.code, ...error.fields } } };
  }
}
