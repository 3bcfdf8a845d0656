import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Control, useForm, UseFormRegister, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Schemas, unwrap } from '../api/client';
import { useConsole } from '../context';
import { commaList, described, FieldError, FormError, joinList, optionalCents, optionalSeconds, showRefusal } from '../forms';
import { ErrorBox, money, Status, Table } from '../ui';
import { RuleEditor } from './policy-rules';
import { ApiRule, jsonRules, parseRule, RULE_FIELDS, RuleRow, rowOf } from './rule-rows';

type Policy = Schemas['PolicySchema'];
type Draft = Schemas['PolicyDraftDto'];

const CAPS = [
  ['per_transaction_cap_cents', 'Per-transaction cap (cents)'],
  ['velocity_cap_cents', 'Velocity cap (cents)'],
  ['velocity_window_seconds', 'Velocity window (seconds)'],
  ['monthly_cap_cents', 'Monthly cap (cents)'],
  ['approval_threshold_cents', 'Hold for approval above (cents)'],
] as const;
type CapField = (typeof CAPS)[number][0];
const TOP_FIELDS = ['mode', ...CAPS.map(([f]) => f), 'counterparty_allowlist', 'imports'] as const;

/** The editor's form: caps and lists as text, rules as typed rows or, in the JSON view, as text. */
type PolicyForm = { mode: 'blocklist' | 'allowlist'; counterparty_allowlist: string; imports: string; editor: 'fields' | 'json'; rules: RuleRow[]; rules_json: string } & Record<CapField, string>;

const policySchema = z
  .object({
    mode: z.enum(['blocklist', 'allowlist']),
    per_transaction_cap_cents: optionalCents,
    velocity_cap_cents: optionalCents,
    velocity_window_seconds: optionalSeconds,
    monthly_cap_cents: optionalCents,
    approval_threshold_cents: optionalCents,
    counterparty_allowlist: commaList,
    imports: commaList,
    editor: z.enum(['fields', 'json']),
    rules: z.array(z.custom<RuleRow>()),
    rules_json: z.string(),
  })
  .transform(({ editor, rules, rules_json, ...fields }, ctx): Draft => {
    let written: ApiRule[] = [];
    if (editor === 'json') {
      const parsed = jsonRules.safeParse(rules_json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['rules_json'] });
        return z.NEVER;
      }
      written = parsed.data;
    } else {
      let valid = true;
      rules.forEach((row, i) => {
        const parsed = parseRule(row);
        if (parsed.rule) return written.push(parsed.rule);
        valid = false;
        for (const { field, message } of parsed.issues) ctx.addIssue({ code: 'custom', message, path: ['rules', i, field] });
      });
      if (!valid) return z.NEVER;
    }
    return { ...fields, rules: written };
  });

function formOf(p: Policy): PolicyForm {
  const caps = Object.fromEntries(CAPS.map(([f]) => [f, p[f] === null || p[f] === undefined ? '' : String(p[f])])) as Record<CapField, string>;
  return {
    mode: p.mode,
    ...caps,
    counterparty_allowlist: joinList(p.counterparty_allowlist),
    imports: joinList(p.imports),
    editor: 'fields',
    rules: (p.rules as ApiRule[]).map(rowOf),
    rules_json: '',
  };
}

/**
 * The form field a refusal's path names (previews nest the draft under `policy`): a rule's own
 * setting, else the rule's kind; in the JSON view every rule path lands on the JSON.
 */
const fieldOf = (editor: PolicyForm['editor']) => (requestPath: string) => {
  const path = requestPath.replace(/^policy\./, '');
  const rule = /^rules(?:\.(\d+)(?:\.(\w+))?)?/.exec(path);
  if (rule) {
    if (editor === 'json') return 'rules_json';
    const [, index, setting] = rule;
    if (index === undefined) return 'rules';
    return `rules.${index}.${(RULE_FIELDS as readonly string[]).includes(setting ?? '') ? setting : 'kind'}`;
  }
  return TOP_FIELDS.find((f) => path === f || path.startsWith(`${f}.`));
};

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Policies: each agent's policy as a form (typed caps and rules), previewed live before saving. */
export function PoliciesPage() {
  const { $api, workspace } = useConsole();
  const path = { workspace_slug: workspace.slug };
  // Each "Edit" opens the saved policy afresh, dropping unsaved edits.
  const [selected, setSelected] = useState<{ id: string; opened: number } | null>(null);
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const policies = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/policies', { params: { path, query: { limit: 200 } } }, { select: (page) => page.data });
  const agents = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/agents', { params: { path, query: { limit: 200 } } }, { select: (page) => page.data });
  const nameOf = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const policy = policies.data?.find((p) => p.id === selected?.id);

  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      <Status query={policies} empty="No policies yet; creating an agent adds a starter policy.">
        {(rows) => (
          <Table head={['Agent', 'Status', 'Per transaction', 'Approval above', 'Rules', 'Version', '']}>
            {rows.map((p) => (
              <tr key={p.id}>
                <td>{nameOf(p.agent_id)}</td>
                <td>{p.status}</td>
                <td>{money(p.per_transaction_cap_cents)}</td>
                <td>{money(p.approval_threshold_cents)}</td>
                <td>{p.rules.length}</td>
                <td>{p.version}</td>
                <td>
                  <button type="button" onClick={() => (setSelected({ id: p.id, opened: (selected?.opened ?? 0) + 1 }), setSavedVersion(null))} aria-label={`Edit policy of ${nameOf(p.agent_id)}`}>
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Status>
      {savedVersion !== null && <p role="status">Saved; the policy is now at version {savedVersion}.</p>}
      {policy && (
        <PolicyEditor key={`${policy.id}-${policy.version}-${selected?.opened}`} policy={policy} agentName={nameOf(policy.agent_id)} onEdit={() => setSavedVersion(null)} onSaved={setSavedVersion} />
      )}
    </section>
  );
}

/** Saving bumps the policy's version, which remounts the editor on the saved policy; the page keeps the "saved" note. */
function PolicyEditor({ policy, agentName, onEdit, onSaved }: { policy: Policy; agentName: string; onEdit(): void; onSaved(version: number): void }) {
  const { $api, workspace, can } = useConsole();
  const queryClient = useQueryClient();
  const path = { workspace_slug: workspace.slug };
  const form = useForm<PolicyForm, unknown, Draft>({ resolver: zodResolver(policySchema), defaultValues: formOf(policy), mode: 'onChange' });
  const { control, register, setError, clearErrors, formState } = form;
  const { errors } = formState;
  const editor = useWatch({ control, name: 'editor' });
  const [trial, setTrial] = useState({ action_type: 'payment.create', resource: 'vendor.example', cost_cents: '5000' });

  // Live preview: the draft evaluated against a trial request, a moment after the last edit.
  const values = useWatch({ control });
  const settled = useDebounced(JSON.stringify({ values, trial }), 400);
  const draft = useMemo(() => {
    const parsed = policySchema.safeParse((JSON.parse(settled) as { values: PolicyForm }).values);
    return parsed.success ? parsed.data : undefined;
  }, [settled]);
  const settledTrial = (JSON.parse(settled) as { trial: typeof trial }).trial;
  const preview = $api.useQuery(
    'post',
    '/control/v1/workspaces/{workspace_slug}/policy_previews',
    {
      params: { path },
      body: {
        agent_id: policy.agent_id,
        action_type: settledTrial.action_type,
        resource: settledTrial.resource || undefined,
        cost_cents: /^\d+$/.test(settledTrial.cost_cents) ? Number(settledTrial.cost_cents) : 0,
        policy: draft ?? {},
      },
    },
    { enabled: draft !== undefined, retry: false },
  );
  // A preview refusal goes next to the field it names; a preview that passes clears the server's word.
  useEffect(() => {
    if (preview.error) showRefusal(preview.error, setError, fieldOf(editor));
  }, [preview.error, setError, editor]);
  useEffect(() => {
    if (preview.data) clearErrors();
  }, [preview.data, clearErrors]);

  const save = $api.useMutation('patch', '/control/v1/workspaces/{workspace_slug}/policies/{id}', {
    onSuccess: async (res) => {
      onSaved(res.data.version);
      await queryClient.invalidateQueries({ queryKey: ['get', '/control/v1/workspaces/{workspace_slug}/policies'] });
    },
    onError: (err) => showRefusal(err, setError, fieldOf(editor)),
  });

  /** Switches between typed rows and raw JSON, carrying the rules across; refuses while the side left does not parse. */
  const switchEditor = async () => {
    if (editor === 'fields') {
      if (!(await form.trigger('rules'))) return;
      const rules = form.getValues('rules').map((row) => parseRule(row).rule);
      form.setValue('rules_json', JSON.stringify(rules, null, 2));
      form.setValue('editor', 'json');
      return;
    }
    const parsed = jsonRules.safeParse(form.getValues('rules_json'));
    if (!parsed.success) return setError('rules_json', { type: 'parse', message: parsed.error.issues[0]?.message });
    form.setValue('rules', parsed.data.map(rowOf));
    form.setValue('editor', 'fields');
    clearErrors('rules_json');
  };

  return (
    <form
      className="editor"
      onSubmit={form.handleSubmit((body) => {
        onEdit();
        save.mutate({ params: { path: { ...path, id: policy.id } }, body: body as Schemas['PolicyWriteDto'] });
      })}
      aria-label={`Policy of ${agentName}`}
      noValidate
    >
      <h2>Policy of {agentName}</h2>
      <label>
        Mode
        <select {...register('mode')} {...described(errors, 'mode')}>
          <option value="blocklist">blocklist (allow unless a rule denies)</option>
          <option value="allowlist">allowlist (deny unless a rule allows)</option>
        </select>
        <FieldError errors={errors} name="mode" />
      </label>
      <div className="grid">
        {CAPS.map(([field, label]) => (
          <label key={field}>
            {label}
            <input inputMode="numeric" {...register(field)} {...described(errors, field)} />
            <FieldError errors={errors} name={field} />
          </label>
        ))}
      </div>
      <label>
        Counterparty allowlist (comma-separated)
        <input {...register('counterparty_allowlist')} {...described(errors, 'counterparty_allowlist')} />
        <FieldError errors={errors} name="counterparty_allowlist" />
      </label>
      <label>
        Imported modules (comma-separated)
        <input {...register('imports')} {...described(errors, 'imports')} />
        <FieldError errors={errors} name="imports" />
      </label>
      {editor === 'fields' ? (
        <RuleEditor control={control as unknown as Control<{ rules: RuleRow[] }>} register={register as unknown as UseFormRegister<{ rules: RuleRow[] }>} errors={errors} />
      ) : (
        <label>
          Rules (JSON array)
          <textarea rows={8} spellCheck={false} {...register('rules_json')} {...described(errors, 'rules_json')} />
          <FieldError errors={errors} name="rules_json" />
        </label>
      )}
      <p>
        <button type="button" onClick={() => void switchEditor()}>
          {editor === 'fields' ? 'Edit rules as JSON' : 'Edit rules as fields'}
        </button>
      </p>
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
        {!draft || preview.error ? (
          <p className="muted">No preview while the draft is invalid.</p>
        ) : preview.data ? (
          <p data-testid="preview-outcome">
            <strong className={`badge ${preview.data.data.outcome}`}>{preview.data.data.outcome}</strong>
            {preview.data.data.rule ? ` by ${preview.data.data.rule}` : ''}
            {preview.data.data.remedy ? ` — ${(preview.data.data.remedy as { summary?: string }).summary ?? ''}` : ''}
          </p>
        ) : (
          <p aria-busy="true">Previewing…</p>
        )}
      </fieldset>
      <BacktestPanel
        agentId={policy.agent_id}
        draftNow={() => {
          const now = policySchema.safeParse(form.getValues()).data;
          if (!now) void form.trigger();
          return now;
        }}
      />
      <FormError errors={errors} />
      {can('manage_policy') ? (
        <button type="submit" disabled={save.isPending}>
          Save policy
        </button>
      ) : (
        <p className="note">Saving needs the manage_policy capability.</p>
      )}
    </form>
  );
}

const OUTCOMES = ['allowed', 'requires_approval', 'denied'] as const;
const DAY_MS = 86_400_000;
const CHANGES = '/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}/changes';

/**
 * "Test against the last 7 / 30 days": the draft re-decides the agent's recorded requests (a policy
 * backtest). It tests the form as it is at the click, not the preview's settled copy.
 */
function BacktestPanel({ agentId, draftNow }: { agentId: string; draftNow(): Draft | undefined }) {
  const { api, $api, workspace } = useConsole();
  const path = { workspace_slug: workspace.slug };
  const start = $api.useMutation('post', '/control/v1/workspaces/{workspace_slug}/policy_backtests');
  const started = start.data?.data;
  // A large window runs on control's queue: follow it until it settles.
  const followed = $api.useQuery(
    'get',
    '/control/v1/workspaces/{workspace_slug}/policy_backtests/{id}',
    { params: { path: { ...path, id: started?.id ?? '' } } },
    { enabled: started !== undefined, refetchInterval: (q) => (['queued', 'running'].includes(q.state.data?.data.status ?? started?.status ?? '') ? 1000 : false) },
  );
  const run = followed.data?.data ?? started;
  const completed = run?.status === 'completed' ? run.id : undefined;
  const changes = useInfiniteQuery({
    queryKey: ['get', CHANGES, completed],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET(CHANGES, { params: { path: { ...path, id: completed as string }, query: { limit: 20, ...(pageParam && { starting_after: pageParam }) } } })),
    initialPageParam: '',
    getNextPageParam: (page) => (page.has_more ? page.data[page.data.length - 1]?.intent_id : undefined),
    enabled: completed !== undefined,
  });
  const shown = changes.data?.pages.flatMap((p) => p.data) ?? [];

  const [invalid, setInvalid] = useState(false);
  const test = (days: number) => {
    const draft = draftNow();
    setInvalid(!draft);
    if (!draft) return;
    const to = new Date();
    start.mutate({ params: { path }, body: { agent_id: agentId, policy: draft, from: new Date(to.getTime() - days * DAY_MS).toISOString(), to: to.toISOString() } });
  };

  const result = run?.result;
  return (
    <fieldset className="preview" aria-live="polite" data-testid="backtest">
      <legend>Test against past requests</legend>
      <p>
        <button type="button" disabled={start.isPending} onClick={() => test(7)}>
          Test against last 7 days
        </button>{' '}
        <button type="button" disabled={start.isPending} onClick={() => test(30)}>
          Test against last 30 days
        </button>
      </p>
      {invalid && <p className="note">Fix the fields marked above first.</p>}
      <ErrorBox error={start.error ?? followed.error ?? changes.error} />
      {run && !result && (
        <p aria-busy="true">
          Backtest {run.status}: {Math.round(run.progress * 100)}%
        </p>
      )}
      {run?.status === 'failed' && <p role="alert">Backtest failed: {run.failure_reason}</p>}
      {result && (
        <>
          <p data-testid="backtest-summary">
            {result.evaluated} requests re-decided; {result.changed} would change.
          </p>
          <Table head={['Outcome', 'Recorded', 'Under this draft']} testId="backtest-totals">
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
          </Table>
          {result.top_rules.length > 0 && <p>Rules that fired most: {result.top_rules.map((r) => `${r.rule} (${r.count})`).join(', ')}</p>}
          {shown.length > 0 && (
            <Table head={['Request', 'Amount', 'Recorded', 'Under this draft']} testId="backtest-changes">
              {shown.map((c) => (
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
            </Table>
          )}
          {changes.hasNextPage && (
            <button type="button" disabled={changes.isFetchingNextPage} onClick={() => void changes.fetchNextPage()}>
              More changes
            </button>
          )}
        </>
      )}
    </fieldset>
  );
}
