/** What a failure carries besides its code and status; each service's renderer picks what its envelope shows. */
export interface ApiErrorExtras {
  /** Offending request field. */
  param?: string;
  hint?: string;
  /** Typed, code-specific detail map. */
  details?: Record<string, unknown>;
  /** Fields some envelopes put beside `code` and `message` (control's `ceiling_cents`, say). */
  fields?: Record<string, unknown>;
  /** Response headers the failure requires (`Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
}

/**
 * A failure with a declared code. `code` is null for the failures a contract leaves codeless
 * (control's plain validation errors); the status is always explicit.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly extras: ApiErrorExtras = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
