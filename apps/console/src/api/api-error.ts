import type { components } from './control-api';

type Envelope = components['schemas']['ControlError'];

/**
 * A failed call: control's envelope (`{error: {message, code, hint, param?, details?}}`) plus the
 * HTTP status, or a network failure with status 0. It has the envelope's shape, so it is what the
 * generated client declares its calls throw.
 */
export class ApiError extends Error implements Envelope {
  constructor(
    readonly error: Envelope['error'],
    readonly status: number,
  ) {
    super(error.message);
  }
}

/** A refusal's envelope; a body that is not one (a proxy's page, say) becomes a plain message. */
export function envelopeOf(body: unknown, status: number): Envelope['error'] {
  const error = (body as Partial<Envelope> | null)?.error;
  if (error && typeof error.message === 'string') return error;
  return { message: `control answered ${status}`, code: null, hint: 'Try again; if it persists, check that control is running' };
}
