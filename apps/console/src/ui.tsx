import { ReactNode, useState } from 'react';
import { ApiError } from './api/client';

/** Integer minor units as a decimal amount, without going through floating point. */
export function money(cents: number | string | null | undefined, currency = 'USD'): string {
  if (cents === null || cents === undefined) return '—';
  const n = BigInt(cents);
  const abs = n < 0n ? -n : n;
  return `${n < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')} ${currency}`;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** An API error as the envelope states it: message and code, never a blank page. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  return (
    <div className="error" role="alert">
      <strong>{api ? `Error ${api.status || ''}` : 'Error'}</strong> {error instanceof Error ? error.message : String(error)}
      {api?.error.code ? <code className="code">{api.error.code}</code> : null}
    </div>
  );
}

/** Loading, error and empty states around a list query (a failed refresh keeps the rows it had). */
export function Status<T>({ query, empty, children }: { query: { data: T[] | undefined; error: unknown }; empty: string; children: (rows: T[]) => ReactNode }) {
  if (query.data === undefined) return query.error ? <ErrorBox error={query.error} /> : <p aria-busy="true">Loading…</p>;
  return (
    <>
      <ErrorBox error={query.error} />
      {query.data.length === 0 ? <p className="empty">{empty}</p> : children(query.data)}
    </>
  );
}

/** A table with one header row; the children are its body rows. */
export function Table({ head, testId, children }: { head: string[]; testId?: string; children: ReactNode }) {
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={i}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A labelled select over fixed options, given as [value, text] pairs. */
export function Choice<V extends string>({ label, value, options, onChange }: { label: string; value: V; options: readonly (readonly [NoInfer<V>, string])[]; onChange(value: NoInfer<V>): void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as V)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A button that asks once more before doing something that cannot be undone. */
export function ConfirmButton({ label, question, onConfirm, danger }: { label: string; question: string; onConfirm(): Promise<void>; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (!asking)
    return (
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        autoFocus
        disabled={busy}
        className={danger ? 'danger' : undefined}
        onClick={() => {
          setBusy(true);
          setError(undefined);
          onConfirm().then(
            () => setAsking(false),
            (err: unknown) => setError(err),
          ).finally(() => setBusy(false));
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
      <ErrorBox error={error} />
    </span>
  );
}

/** A value shown exactly once (agent key, invitation link), with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> — shown only now; copy it somewhere safe.
      </p>
      <code className="secret" data-testid="shown-once">{value}</code>
      <button type="button" onClick={() => navigator.clipboard.writeText(value).then(() => setCopied(true), () => setCopied(false))}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/** Remaining of a total as a bar. */
export function RemainingBar({ remaining, total, label }: { remaining: number; total: number; label: string }) {
  const pct = total > 0 ? Math.max(0, Math.min(100, Math.round((remaining / total) * 100))) : 0;
  return (
    <div className="bar" role="meter" aria-valuemin={0} aria-valuemax={total} aria-valuenow={remaining} aria-label={label}>
      <div className="bar-fill" style={{ width: `${pct}%` }} />
      <span>{pct}% left</span>
    </div>
  );
}
