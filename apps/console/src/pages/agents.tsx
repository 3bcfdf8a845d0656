import { FormEvent, useState } from 'react';
import { Schemas, unwrap } from '../api/client';
import { useConsole } from '../context';
import { ConfirmButton, ErrorBox, money, RemainingBar, ShownOnce, Status, useLoad, when } from '../ui';

/** Agents: list and status, create (key shown once), revoke keys, budgets as bars, recent decisions. */
export function AgentsPage() {
  const { api, workspace, can } = useConsole();
  const [created, setCreated] = useState<Schemas['CreatedAgentSchema'] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const agents = useLoad(
    async () => (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/agents', { params: { path: { workspace_slug: workspace.slug }, query: { limit: 200 } } }))).data,
    [api, workspace.slug],
  );

  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      {can('manage_policy') && <CreateAgent onCreated={(a) => (setCreated(a), agents.reload())} />}
      {created && <ShownOnce label={`API key of ${created.name}`} value={created.api_key} />}
      <Status loaded={agents} empty="No agents yet.">
        {(rows) => (
          <ul className="cards">
            {rows.map((agent) => (
              <li key={agent.id} className="card" data-testid={`agent-${agent.name}`}>
                <div className="row">
                  <strong>{agent.name}</strong>
                  <span className={`badge ${agent.status}`}>{agent.status}</span>
                  <span className="muted">
                    {agent.mode} · key {agent.api_key_prefix}… · max budget {agent.max_budget_cents === null ? 'no ceiling' : money(agent.max_budget_cents)} · last used {when(agent.last_used_at)}
                  </span>
                </div>
                <div className="actions">
                  <button type="button" aria-expanded={open === agent.id} onClick={() => setOpen(open === agent.id ? null : agent.id)}>
                    {open === agent.id ? 'Hide details' : 'Budgets and decisions'}
                  </button>
                  {can('manage_policy') && agent.status !== 'revoked' && (
                    <ConfirmButton
                      label="Revoke key"
                      danger
                      question={`Revoke ${agent.name}'s key? The agent can no longer authorize anything.`}
                      onConfirm={async () => {
                        await unwrap(
                          api.PATCH('/control/v1/workspaces/{workspace_slug}/agents/{id}', {
                            params: { path: { workspace_slug: workspace.slug, id: agent.id } },
                            body: { status: 'revoked' },
                          }),
                        );
                        agents.reload();
                      }}
                    />
                  )}
                </div>
                {open === agent.id && <AgentDetails agentId={agent.id} />}
              </li>
            ))}
          </ul>
        )}
      </Status>
    </section>
  );
}

function CreateAgent({ onCreated }: { onCreated(agent: Schemas['CreatedAgentSchema']): void }) {
  const { api, workspace } = useConsole();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'test' | 'live'>('test');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await unwrap(api.POST('/control/v1/workspaces/{workspace_slug}/agents', { params: { path: { workspace_slug: workspace.slug } }, body: { name, mode } }));
      setName('');
      onCreated(res.data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="Create agent">
      <label>
        Name
        <input name="agent-name" value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Mode
        <select value={mode} onChange={(e) => setMode(e.target.value as 'test' | 'live')}>
          <option value="test">test</option>
          <option value="live">live</option>
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Create agent
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

function AgentDetails({ agentId }: { agentId: string }) {
  const { api, workspace } = useConsole();
  const path = { workspace_slug: workspace.slug };
  const budgets = useLoad(
    async () => (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/budgets', { params: { path, query: { agent_id: agentId, limit: 20 } } }))).data,
    [api, workspace.slug, agentId],
  );
  const decisions = useLoad(async () => {
    const [payments, actions] = await Promise.all([
      unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/payment_intents', { params: { path, query: { agent_id: agentId, limit: 10 } } })),
      unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/action_intents', { params: { path, query: { agent_id: agentId, limit: 10 } } })),
    ]);
    const rows = [
      ...(payments.data as Schemas['PaymentIntentSchema'][]).map((p) => ({ id: p.id, at: p.created_at, what: `payment to ${p.counterparty ?? '—'}`, cents: p.amount_cents, currency: p.currency, state: p.state })),
      ...(actions.data as Schemas['ActionIntentSchema'][]).map((a) => ({ id: a.id, at: a.created_at, what: a.action_type, cents: a.cost_cents, currency: a.currency, state: a.state })),
    ];
    return rows.sort((a, b) => b.at.localeCompare(a.at)).slice(0, 10);
  }, [api, workspace.slug, agentId]);
  return (
    <div className="details">
      <h2>Budgets</h2>
      <Status loaded={budgets} empty="No budgets opened yet.">
        {(rows) => (
          <ul className="plain">
            {rows.map((b) => (
              <li key={b.id}>
                {money(b.remaining_cents, b.currency)} left of {money(b.budget_cents, b.currency)} ({b.status})
                <RemainingBar remaining={b.remaining_cents} total={b.budget_cents} label={`Budget ${b.id} remaining`} />
              </li>
            ))}
          </ul>
        )}
      </Status>
      <h2>Recent decisions</h2>
      <Status loaded={decisions} empty="No decisions yet.">
        {(rows) => (
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Amount</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{when(r.at)}</td>
                  <td>{r.what}</td>
                  <td>{money(r.cents, r.currency)}</td>
                  <td>{r.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Status>
    </div>
  );
}
