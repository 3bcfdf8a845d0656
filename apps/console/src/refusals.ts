import { ApiError } from './api/api-error';

/** A refusal's field path in form notation: `rules[0].max_cents` -> `rules.0.max_cents`. */
export const formPath = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

/**
 * The fields a refusal names, from the envelope only: `details.fields` (every failing field of a
 * validation failure, with its messages) or else `param` (the one field a rule refused).
 */
export function refusedFields(err: unknown): { path: string; message: string }[] {
  if (!(err instanceof ApiError)) return [];
  const fields = err.error.details?.fields;
  if (fields && Object.keys(fields).length > 0) {
    return Object.entries(fields).map(([path, messages]) => ({ path: formPath(path), message: messages.join('; ') }));
  }
  return err.error.param ? [{ path: formPath(err.error.param), message: err.error.message }] : [];
}
