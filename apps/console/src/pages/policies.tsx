import { FormEvent, useEffect, useState } from 'react';
import { ApiError, Schemas, unwrap } from '../api/client';
import { useConsole } from '../context';
import { ErrorBox, money, Status, useLoad } from '../ui';

type Policy = Schemas['PolicySchema'];
type Draft = Schemas['PolicyDraftDto'];
type Backtest = Schemas['PolicyBacktestSchema'];
type Change = Schemas['PolicyBacktestChangeSchema'];

const CAPS = [
  ['per_transaction_cap_cents', 'Per-transaction cap (cents)'],
  ['velocity_cap_cents', 'Velocity cap (cents)'],
  ['velocity_window_seconds', 'Velocity window (seconds)'],
  ['monthly_cap_cents', 'Monthly cap (cents)'],
  ['approval_threshold_cents', 'Hold for approval above (cents)'],
] as const;
type CapField = (typeof CAPS)[number][0];
const FIELDS = ['mode', ...CAPS.map(([f]) => f), 'counterparty_allowlist', 'imports', 'rules'] as const;
type Field = (typeof FIELDS)[number];

interface Form {
  mode: 'blocklist' | 'allowlist';
  caps: Record<CapField, string>;
  counterparty_allowlist: string;
  imports: string;
  rules: string;
}

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

function formOf(p: Policy): Form {
  const caps = Object.fromEntries(CAPS.map(([f]) => [f, p[f] === null || p[f] === undefined ? '' : String(p[f])])) as Record<CapField, string>;
  return { mode: p.mode, caps, counterparty_allowlist: p.counterparty_allowlist.join(', '), imports: p.imports.join(', '), rules: JSON.stringify(p.rules, null, 2) };
}

/** The draft the form describes; a field that does not parse is reported as that field's error. */
function draftOf(form: Form): { draft: Draft } | { draft?: undefined; field: Field; message: string } {
  const draft: Record<string, unknown> = { mode: form.mode, counterparty_allowlist: list(form.counterparty_allowlist), imports: list(form.imports) };
  for (const [field] of CAPS) {
    const text = form.caps[field].trim();
    if (text !== '' && !/^\d+$/.test(text)) return { field, message: 'a whole number of cents (or empty for none)' };
    draft[field] = text === '' ? null : Number(text);
  }
  try {
    const rules: unknown = JSON.parse(form.rules || '[]');
    if (!Array.isArray(rules)) return { field: 'rules', message: 'rules must be a JSON array' };
    draft.rules = rules;
  } catch (err) {
    return { field: 'rules', message: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { draft: draft as Draft };
}

/** Which form field an API message is about: the field named earliest in it ("rules.0.max_cents must…"). */
function fieldOfMessage(message: string): Field | undefined {
  const hits = FIELDS.map((f) => [f, message.indexOf(f)] as const).filter(([, i]) => i >= 0);
  hits.sort((a, b) => a[1] - b[1]);
  return hits[0]?.[0];
}

/** Policies: each agent's policy as a form (typed caps plus rules), previewed live before saving. */
export function PoliciesPage() {
  const { api, workspace } = useConsole();
  const path = { workspace_slug: workspace.slug };
  const [selected, setSelected] = useState<string | null>(null);
  const policies = useLoad(async () => (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/policies', { params: { path, query: { limit: 200 } } }))).data, [api, workspace.slug]);
  const agents = useLoad(async () => (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/agents', { params: { path, query: { limit: 200 } } }))).data, [api, workspace.slug]);
  const nameOf = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const policy = policies.data?.find((p) => p.id === selected);

  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <Status loaded={policies} empty="No policies yet; creating an agent adds a starter policy.">
        {(rows) => (
          <table>
            <thead>
              <tr>
                <th>Agent</th>
                <th>Status</th>
                <th>Per transaction</th>
                <th>Approval above</th>
                <th>Version</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id}>
                  <td>{nameOf(p.agent_id)}</td>
                  <td>{p.status}</td>
                  <td>{money(p.per_transaction_cap_cents)}</td>
                  <td>{money(p.approval_threshold_cents)}</td>
                  <td>{p.version}</td>
                  <td>
                    <button type="button" onClick={() => setSelected(p.id)} aria-label={`Edit policy of ${nameOf(p.agent_id)}`}>
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Status>
      {policy && <PolicyEditor key={`${policy.id}-${policy.version}`} policy={policy} agentName={nameOf(policy.agent_id)} onSaved={() => policies.reload()} />}
    </section>
  );
}

function PolicyEditor({ policy, agentName, onSaved }: { policy: Policy; agentName: string; onSaved(): void }) {
  const { api, workspace, can } = useConsole();
  const [form, setForm] = useState<Form>(() => formOf(policy));
  const [trial, setTrial] = useState({ action_type: 'payment.create', resource: 'vendor.example', cost_cents: '5000' });
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<unknown>();
  const [preview, setPreview] = useState<{ decision?: Schemas['DecisionSchema']; error?: unknown }>({});
  const [saved, setSaved] = useState(false);

  /** Puts an API error next to the field it names, or above the buttons when it names none. */
  const report = (err: unknown) => {
    const field = err instanceof ApiError ? fieldOfMessage(err.message) : undefined;
    if (field && err instanceof ApiError) setFieldErrors({ [field]: `${err.message}${err.code ? ` (${err.code})` : ''}` });
    else setFormError(err);
  };

  // Live preview: the draft evaluated against a trial request, a moment after the last edit.
  useEffect(() => {
    const parsed = draftOf(form);
    if (!parsed.draft) {
      setFieldErrors({ [parsed.field]: parsed.message });
      return;
    }
    const draft = parsed.draft;
    const timer = window.setTimeout(() => {
      setFieldErrors({});
      setFormError(undefined);
      unwrap(
        api.POST('/control/v1/workspaces/{workspace_slug}/policy_previews', {
          params: { path: { workspace_slug: workspace.slug } },
          body: {
            agent_id: policy.agent_id,
            action_type: trial.action_type,
            resource: trial.resource || undefined,
            cost_cents: /^\d+$/.test(trial.cost_cents) ? Number(trial.cost_cents) : 0,
            policy: draft,
          },
        }),
      ).then(
        (res) => setPreview({ decision: res.data }),
        (error: unknown) => {
          setPreview({ error });
          report(error);
        },
      );
    }, 400);
    return () => window.clearTimeout(timer);
  }, [api, workspace.slug, policy.agent_id, form, trial]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = draftOf(form);
    if (!parsed.draft) return;
    setSaved(false);
    setFormError(undefined);
    try {
      await unwrap(
        api.PATCH('/control/v1/workspaces/{workspace_slug}/policies/{id}', {
          params: { path: { workspace_slug: workspace.slug, id: policy.id } },
          body: parsed.draft as Schemas['PolicyWriteDto'],
        }),
      );
      setSaved(true);
      onSaved();
    } catch (err) {
      report(err);
    }
  };
  const fieldError = (f: Field) =>
    fieldErrors[f] ? (
      <span className="field-error" role="alert" id={`${f}-error`}>
        {fieldErrors[f]}
      </span>
    ) : null;
  const described = (f: Field) => (fieldErrors[f] ? { 'aria-describedby': `${f}-error`, 'aria-invalid': true } : {});

  return (
    <form className="editor" onSubmit={save} aria-label={`Policy of ${agentName}`}>
      <h2>Policy of {agentName}</h2>
      <label>
        Mode
        <select value={form.mode} onChange={(e) => setForm({ ...form, mode: e.target.value as Form['mode'] })} {...described('mode')}>
          <option value="blocklist">blocklist (allow unless a rule denies)</option>
          <option value="allowlist">allowlist (deny unless a rule allows)</option>
        </select>
        {fieldError('mode')}
      </label>
      <div className="grid">
        {CAPS.map(([field, label]) => (
          <label key={field}>
            {label}
            <input
              name={field}
              inputMode="numeric"
              value={form.caps[field]}
              onChange={(e) => setForm({ ...form, caps: { ...form.caps, [field]: e.target.value } })}
              {...described(field)}
            />
            {fieldError(field)}
          </label>
        ))}
      </div>
      <label>
        Counterparty allowlist (comma-separated)
        <input name="counterparty_allowlist" value={form.counterparty_allowlist} onChange={(e) => setForm({ ...form, counterparty_allowlist: e.target.value })} {...described('counterparty_allowlist')} />
        {fieldError('counterparty_allowlist')}
      </label>
      <label>
        Imported modules (comma-separated)
        <input name="imports" value={form.imports} onChange={(e) => setForm({ ...form, imports: e.target.value })} {...described('imports')} />
        {fieldError('imports')}
      </label>
      <label>
        Rules (JSON array)
        <textarea name="rules" rows={8} spellCheck={false} value={form.rules} onChange={(e) => setForm({ ...form, rules: e.target.value })} {...described('rules')} />
        {fieldError('rules')}
      </label>
      <fieldset className="preview" aria-live="polite">
        <legend>Live preview</legend>
        <div className="grid">
          <label>
            Action type
            <input value={trial.action_type} onChange={(e) => setTrial({ ...trial, action_type: e.target.value })} />
          </label>
          <label>
            Resource
            <input value={trial.resource} onChange={(e) => setTrial({ ...trial, resource: e.target.value })} />
          </label>
          <label>
            Cost (cents)
            <input inputMode="numeric" value={trial.cost_cents} onChange={(e) => setTrial({ ...trial, cost_cents: e.target.value })} />
          </label>
        </div>
        {preview.decision ? (
          <p data-testid="preview-outcome">
            <strong className={`badge ${preview.decision.outcome}`}>{preview.decision.outcome}</strong>
            {preview.decision.rule ? ` by ${preview.decision.rule}` : ''}
            {preview.decision.remedy ? ` — ${(preview.decision.remedy as { summary?: string }).summary ?? ''}` : ''}
          </p>
        ) : preview.error ? (
          <p className="muted">No preview while the draft is invalid.</p>
        ) : (
          <p aria-busy="true">Previewing…</p>
        )}
      </fieldset>
      <BacktestPanel agentId={policy.agent_id} draft={draftOf(form).draft} />
      <ErrorBox error={formError} />
      {can('manage_policy') ? (
        <button type="submit">Save policy</button>
      ) : (
        <p className="note">Saving needs the manage_policy capability.</p>
      )}
      {saved && <p role="status">Saved.</p>}
    </form>
  );
}

const OUTCOMES = ['allowed', 'requires_approval', 'denied'] as const;
const DAY_MS = 86_400_000;

/** "Test against the last 7 / 30 days": the draft re-decides the agent's recorded requests (a policy backtest). */
function BacktestPanel({ agentId, draft }: { agentId: string; draft: Draft | undefined }) {
  const { api, workspace } = useConsole();
  const [run, setRun] = useState<Backtest>();
  const [changes, setChanges] = useState<Change[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>();
  const path = { workspace_slug: workspace.slug };

  const loadChanges = async (id: string, after?: string) => {
    const page = await unwrap(
      api.GET('/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}/changes', {
        params: { path: { ...path, id }, query: { limit: 20, ...(after && { starting_after: after }) } },
      }),
    );
    setChanges((shown) => (after ? [...shown, ...page.data] : page.data));
    setMore(page.has_more);
  };

  const start = async (days: number) => {
    if (!draft) return;
    setError(undefined);
    setRun(undefined);
    setChanges([]);
    try {
      const to = new Date();
      let current = (
        await unwrap(
          api.POST('/control/v1/workspaces/{workspace_slug}/policy_backtests', {
            params: { path },
            body: { agent_id: agentId, policy: draft, from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() },
          }),
        )
      ).data;
      setRun(current);
      // A large window runs on control's queue: follow it until it settles.
      while (current.status === 'queued' || current.status === 'running') {
        await new Promise((r) => window.setTimeout(r, 1000));
        current = (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}', { params: { path: { ...path, id: current.id } } }))).data;
        setRun(current);
      }
      if (current.status === 'completed') await loadChanges(current.id);
    } catch (err) {
      setError(err);
    }
  };

  const result = run?.result;
  return (
    <fieldset className="preview" aria-live="polite" data-testid="backtest">
      <legend>Test against past requests</legend>
      <p>
        <button type="button" disabled={!draft} onClick={() => void start(7)}>
          Test against last 7 days
        </button>{' '}
        <button type="button" disabled={!draft} onClick={() => void start(30)}>
          Test against last 30 days
        </button>
      </p>
      <ErrorBox error={error} />
      {run && !result && <p aria-busy="true">Backtest {run.status}: {Math.round(run.progress * 100)}%</p>}
      {run?.status === 'failed' && <p role="alert">Backtest failed: {run.failure_reason}</p>}
      {result && (
        <>
          <p data-testid="backtest-summary">
            {result.evaluated} requests re-decided; {result.changed} would change.
          </p>
          <table data-testid="backtest-totals">
            <thead>
              <tr>
                <th>Outcome</th>
                <th>Recorded</th>
                <th>Under this draft</th>
              </tr>
            </thead>
            <tbody>
              {OUTCOMES.map((o) => (
                <tr key={o}>
                  <td>{o}</td>
                  <td>
                    {result.totals.before[o]}
                    {Object.entries(result.amounts).map(([cur, a]) => ` · ${money(a.before[o], cur)}`)}
                  </td>
                  <td>
                    {result.totals.after[o]}
                    {Object.entries(result.amounts).map(([cur, a]) => ` · ${money(a.after[o], cur)}`)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {result.top_rules.length > 0 && <p>Rules that fired most: {result.top_rules.map((r) => `${r.rule} (${r.count})`).join(', ')}</p>}
          {changes.length > 0 && (
            <table data-testid="backtest-changes">
              <thead>
                <tr>
                  <th>Request</th>
                  <th>Amount</th>
                  <th>Recorded</th>
                  <th>Under this draft</th>
                </tr>
              </thead>
              <tbody>
                {changes.map((c) => (
                  <tr key={c.intent_id}>
                    <td>
                      {c.action_type} {c.resource ?? ''} <span className="muted">{c.intent_id.slice(0, 8)}</span>
                    </td>
                    <td>{money(c.amount_cents, c.currency)}</td>
                    <td>
                      {c.original.outcome}
                      {c.original.rule ? ` by ${c.original.rule}` : ''}
                    </td>
                    <td>
                      {c.replayed.outcome}
                      {c.replayed.rule ? ` by ${c.replayed.rule}` : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {more && run && (
            <button type="button" onClick={() => void loadChanges(run.id, changes[changes.length - 1]?.intent_id).catch(setError)}>
              More changes
            </button>
          )}
        </>
      )}
    </fieldset>
  );
}
