import type { FieldErrors, FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { z } from 'zod';
import { ApiError } from './api/api-error';
import { refusedFields } from './refusals';

/**
 * Puts a refusal next to the form fields it names; `fieldOf` says which form field a request path
 * belongs to (undefined: none). What no field takes goes to the form's root error, with its code.
 */
export function showRefusal<T extends FieldValues>(err: unknown, setError: UseFormSetError<T>, fieldOf: (path: string) => string | undefined): void {
  let placed = false;
  for (const { path, message } of refusedFields(err)) {
    const field = fieldOf(path);
    if (field) {
      setError(field as Path<T>, { type: 'server', message });
      placed = true;
    }
  }
  if (placed) return;
  const api = err instanceof ApiError ? err : null;
  setError('root.server' as Path<T>, {
    type: api?.error.code ?? 'server',
    message: api ? `${api.status ? `Error ${api.status}: ` : ''}${api.message}` : err instanceof Error ? err.message : String(err),
  });
}

/** A request path that is one of the form's own top-level fields, or below one. */
export const ownField = (fields: readonly string[]) => (path: string) => fields.find((f) => path === f || path.startsWith(`${f}.`));

/** The error text of `name` (a dotted path), wired to its input by id for screen readers. */
export function FieldError({ errors, name }: { errors: FieldErrors; name: string }) {
  const message = errorAt(errors, name);
  if (!message) return null;
  return (
    <span className="field-error" role="alert" id={errorId(name)}>
      {message}
    </span>
  );
}

/** aria attributes for an input whose field may carry an error. */
export function described(errors: FieldErrors, name: string) {
  return errorAt(errors, name) ? { 'aria-describedby': errorId(name), 'aria-invalid': true } : {};
}

/** The form's root error (a refusal no field took), as an alert with the envelope's code. */
export function FormError({ errors }: { errors: FieldErrors }) {
  const root = errors.root?.server;
  if (!root) return null;
  return (
    <div className="error" role="alert">
      {root.message}
      {root.type && root.type !== 'server' ? <code className="code">{String(root.type)}</code> : null}
    </div>
  );
}

/** A form's submit button, held while its request is in flight, and the refusal no field took. */
export function Submit({ label, pending, errors }: { label: string; pending: boolean; errors: FieldErrors }) {
  return (
    <>
      <button type="submit" disabled={pending}>
        {label}
      </button>
      <FormError errors={errors} />
    </>
  );
}

const errorId = (name: string) => `${name.replace(/\./g, '-')}-error`;

function errorAt(errors: FieldErrors, name: string): string | undefined {
  let node: unknown = errors;
  for (const key of name.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  const message = (node as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** Zod pieces for text inputs. */
export const wholeCents = z.string().trim().regex(/^\d+$/, 'a whole number of cents').transform(Number);
export const positiveInt = z.string().trim().regex(/^[1-9]\d*$/, 'a whole number of at least 1').transform(Number);
/** Empty for none, else whole cents. */
export const optionalCents = z
  .string()
  .trim()
  .regex(/^\d*$/, 'a whole number of cents (or empty for none)')
  .transform((t) => (t === '' ? null : Number(t)));
export const optionalSeconds = z
  .string()
  .trim()
  .regex(/^(|[1-9]\d*)$/, 'a whole number of seconds (or empty for none)')
  .transform((t) => (t === '' ? null : Number(t)));
/** A comma-separated list. */
export const commaList = z.string().transform((t) => t.split(',').map((s) => s.trim()).filter(Boolean));
export const joinList = (list: readonly string[] | undefined) => (list ?? []).join(', ');
