import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '../api/client';
import { useConsole } from '../context';
import { Choice, ConfirmButton, ErrorBox, money, when } from '../ui';

type Kind = 'payment_intents' | 'action_intents';
type Intent = Schemas['PaymentIntentSchema'] | Schemas['ActionIntentSchema'];
const REFRESH_MS = 5000;

const amountOf = (i: Intent) => ('amount_cents' in i ? i.amount_cents : i.cost_cents);
const targetOf = (i: Intent) => ('counterparty' in i ? i.counterparty : `${i.action_type} ${i.resource ?? ''}`);

/** The held queue (payments and actions) with the reference's filters, sorting and summary. */
export function ApprovalsPage() {
  const { $api, workspace, can } = useConsole();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('payment_intents');
  const [sort, setSort] = useState<'age' | 'amount'>('age');
  const [direction, setDirection] = useState<'desc' | 'asc'>('desc');
  const [minAmount, setMinAmount] = useState('');
  const [mode, setMode] = useState<'' | 'live' | 'test'>('');
  const [open, setOpen] = useState<string | null>(null);
  const query = {
    state: 'held' as const,
    sort,
    direction,
    ...(/^\d+$/.test(minAmount) ? { min_amount_cents: Number(minAmount) } : {}),
    ...(mode ? { agent_mode: mode } : {}),
  };
  // Polls, so items held after the page opened appear by themselves.
  const queue = $api.useQuery('get', `/control/v1/workspaces/{workspace_slug}/${kind}`, { params: { path: { workspace_slug: workspace.slug }, query } }, { refetchInterval: REFRESH_MS });
  const settled = () => queryClient.invalidateQueries({ queryKey: ['get', `/control/v1/workspaces/{workspace_slug}/${kind}`] });
  const approve = $api.useMutation('post', `/control/v1/workspaces/{workspace_slug}/${kind}/{id}/approve`, { onSuccess: settled });
  const deny = $api.useMutation('post', `/control/v1/workspaces/{workspace_slug}/${kind}/{id}/deny`, { onSuccess: settled });

  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Queue filters">
        <Choice label="Queue" value={kind} onChange={setKind} options={[['payment_intents', 'Payments'], ['action_intents', 'Actions']]} />
        <Choice label="Sort by" value={sort} onChange={setSort} options={[['age', 'Age'], ['amount', 'Amount']]} />
        <Choice label="Order" value={direction} onChange={setDirection} options={[['desc', 'Descending'], ['asc', 'Ascending']]} />
        <label>
          Minimum (cents)
          <input inputMode="numeric" value={minAmount} onChange={(e) => setMinAmount(e.target.value.trim())} placeholder="0" />
        </label>
        <Choice label="Agent mode" value={mode} onChange={setMode} options={[['', 'Any'], ['live', 'Live'], ['test', 'Test']]} />
      </form>
      {queue.data && (
        <p className="summary" data-testid="queue-summary">
          {queue.data.summary.total} held, {money(queue.data.summary.total_cents)} in total
        </p>
      )}
      {!can('approve') && <p className="note">You can see the queue; approving and denying needs the approve capability (owner or admin).</p>}
      {queue.data === undefined ? (
        queue.error ? <ErrorBox error={queue.error} /> : <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <ErrorBox error={queue.error} />
          {queue.data.data.length === 0 ? (
            <p className="empty">Nothing is waiting for a person.</p>
          ) : (
            <ul className="cards">
              {(queue.data.data as Intent[]).map((intent) => (
                <li key={intent.id} className="card" data-testid={`held-${intent.id}`}>
                  <div className="row">
                    <strong>{money(amountOf(intent), intent.currency)}</strong>
                    <span>{targetOf(intent)}</span>
                    <span className="muted">held {when(intent.created_at)}</span>
                  </div>
                  <button type="button" aria-expanded={open === intent.id} onClick={() => setOpen(open === intent.id ? null : intent.id)}>
                    {open === intent.id ? 'Hide impact' : 'Impact'}
                  </button>
                  {open === intent.id && <Impact kind={kind} id={intent.id} />}
                  {can('approve') && (
                    <div className="actions">
                      <ConfirmButton
                        label="Approve"
                        question={`Approve ${money(amountOf(intent), intent.currency)}?`}
                        onConfirm={async () => {
                          await approve.mutateAsync({ params: { path: { workspace_slug: workspace.slug, id: intent.id } } });
                        }}
                      />
                      <ConfirmButton
                        label="Deny"
                        danger
                        question="Deny and return the reservation?"
                        onConfirm={async () => {
                          await deny.mutateAsync({ params: { path: { workspace_slug: workspace.slug, id: intent.id } }, body: { reason: 'denied in the console' } });
                        }}
                      />
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/** What approving or denying would do: returns on deny, open holds, window usage, the spend token. */
function Impact({ kind, id }: { kind: Kind; id: string }) {
  const { $api, workspace } = useConsole();
  const impact = $api.useQuery('get', `/control/v1/workspaces/{workspace_slug}/${kind}/{id}/impact`, { params: { path: { workspace_slug: workspace.slug, id } } });
  if (!impact.data) return impact.error ? <ErrorBox error={impact.error} /> : <p aria-busy="true">Loading impact…</p>;
  const d = impact.data.data;
  return (
    <dl className="impact" data-testid="impact">
      <dt>Held by rule</dt>
      <dd>{d.rule}</dd>
      <dt>Agent</dt>
      <dd>
        {d.agent.name} ({d.agent.mode})
      </dd>
      <dt>Budget</dt>
      <dd>
        {money(d.session.remaining_cents, d.currency)} left of {money(d.session.budget_cents, d.currency)}
      </dd>
      <dt>Denying returns</dt>
      <dd>{money(d.session.returns_on_deny_cents, d.currency)}</dd>
      <dt>Open holds</dt>
      <dd>{d.session.open_holds}</dd>
      {d.windows.map((w) => (
        <div key={`${w.kind}-${w.window_seconds}`} className="pair">
          <dt>
            {w.kind} window ({w.window_seconds}s)
          </dt>
          <dd>
            {money(w.spent_cents, d.currency)} spent of {money(w.cap_cents, d.currency)}
          </dd>
        </div>
      ))}
      <dt>Spend token</dt>
      <dd>{d.spend_token ? `${money(d.spend_token.amount_ceiling_cents, d.currency)} ceiling, ${d.spend_token.counterparty ?? 'any payee'}, expires ${when(d.spend_token.expires_at)}` : 'none'}</dd>
    </dl>
  );
}
