import { useState } from 'react';
import type { Schemas } from '../api/client';
import { useConsole } from '../context';
import { ErrorBox, when } from '../ui';

const SUBJECTS: Schemas['AuditEventSchema']['subject_type'][] = [
  'Session', 'SpendToken', 'ActionIntent', 'PaymentIntent', 'Policy', 'PolicyModule', 'Agent', 'Workspace', 'WorkspaceMembership', 'WorkspaceInvitation', 'Subscription',
];
const PAGE = 25;

/** The audit log: filterable, paginated by cursor, each entry expandable to its snapshot. */
export function AuditPage() {
  const { $api, workspace } = useConsole();
  const [subjectType, setSubjectType] = useState<Schemas['AuditEventSchema']['subject_type'] | ''>('');
  const [action, setAction] = useState('');
  const [subjectId, setSubjectId] = useState('');
  // Cursors of the pages before this one, so "Previous" works with a forward-only cursor.
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];
  const events = $api.useQuery(
    'get',
    '/control/v1/workspaces/{workspace_slug}/audit_events',
    {
      params: {
        path: { workspace_slug: workspace.slug },
        query: {
          limit: PAGE,
          ...(cursor ? { starting_after: cursor } : {}),
          ...(subjectType ? { subject_type: subjectType } : {}),
          ...(action.trim() ? { action: action.trim() } : {}),
          ...(/^[0-9a-f-]{36}$/i.test(subjectId.trim()) ? { subject_id: subjectId.trim() } : {}),
        },
      },
    },
    // The page shown stays while the next one loads, so paging does not flash an empty list.
    { placeholderData: (previous) => previous },
  );
  const filter = <T,>(set: (v: T) => void) => (v: T) => {
    setCursors([]);
    set(v);
  };

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Audit filters">
        <label>
          Subject
          <select value={subjectType} onChange={(e) => filter(setSubjectType)(e.target.value as typeof subjectType)}>
            <option value="">Any</option>
            {SUBJECTS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Action
          <input value={action} placeholder="e.g. approval.granted" onChange={(e) => filter(setAction)(e.target.value)} />
        </label>
        <label>
          Subject id
          <input value={subjectId} onChange={(e) => filter(setSubjectId)(e.target.value)} />
        </label>
      </form>
      <ErrorBox error={events.error} />
      {events.data === undefined ? (
        !events.error && <p aria-busy="true">Loading…</p>
      ) : events.data.data.length === 0 ? (
        <p className="empty">No audit events match.</p>
      ) : (
        <ul className="log">
          {events.data.data.map((e) => (
            <li key={e.id} data-testid="audit-event">
              <button type="button" className="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                <span className="muted">{when(e.created_at)}</span> <strong>{e.action}</strong> {e.subject_type}{' '}
                <span className="muted">
                  by {e.actor ? `${e.actor.type} ${e.actor.id}` : 'unknown'}
                </span>
              </button>
              {open === e.id && (
                <pre className="snapshot">{JSON.stringify({ subject_id: e.subject_id, trace_id: e.trace_id, snapshot: e.snapshot }, null, 2)}</pre>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <button
          type="button"
          disabled={!events.data?.has_more || !events.data.next_cursor}
          onClick={() => events.data?.next_cursor && setCursors([...cursors, events.data.next_cursor])}
        >
          Next
        </button>
      </div>
    </section>
  );
}
