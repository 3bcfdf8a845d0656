import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import type { Schemas } from '../api/client';
import { useConsole } from '../context';
import { described, FieldError, ownField, showRefusal, Submit } from '../forms';
import { ConfirmButton, money, RemainingBar, ShownOnce, Status, Table, when } from '../ui';

const AGENTS = ['get', '/control/v1/workspaces/{workspace_slug}/agents'] as const;

/** Agents: list and status, create (key shown once), revoke keys, budgets as bars, recent decisions. */
export function AgentsPage() {
  const { $api, workspace, can } = useConsole();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<Schemas['CreatedAgentSchema'] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const agents = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/agents', { params: { path: { workspace_slug: workspace.slug }, query: { limit: 200 } } }, { select: (page) => page.data });
  const refresh = () => queryClient.invalidateQueries({ queryKey: AGENTS });
  const revoke = $api.useMutation('patch', '/control/v1/workspaces/{workspace_slug}/agents/{id}', { onSuccess: refresh });

  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      {can('manage_policy') && <CreateAgent onCreated={(a) => (setCreated(a), void refresh())} />}
      {created && <ShownOnce label={`API key of ${created.name}`} value={created.api_key} />}
      <Status query={agents} empty="No agents yet.">
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
                        await revoke.mutateAsync({ params: { path: { workspace_slug: workspace.slug, id: agent.id } }, body: { status: 'revoked' } });
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

const agentForm = z.object({ name: z.string().trim().min(1, 'a name is required'), mode: z.enum(['test', 'live']) });
type AgentForm = z.input<typeof agentForm>;

function CreateAgent({ onCreated }: { onCreated(agent: Schemas['CreatedAgentSchema']): void }) {
  const { $api, workspace } = useConsole();
  const form = useForm<AgentForm, unknown, z.output<typeof agentForm>>({ resolver: zodResolver(agentForm), defaultValues: { name: '', mode: 'test' } });
  const { errors } = form.formState;
  const create = $api.useMutation('post', '/control/v1/workspaces/{workspace_slug}/agents', {
    onSuccess: (res) => {
      form.reset();
      onCreated(res.data);
    },
    onError: (err) => showRefusal(err, form.setError, ownField(['name', 'mode'])),
  });
  return (
    <form
      className="inline"
      onSubmit={form.handleSubmit((body) => create.mutate({ params: { path: { workspace_slug: workspace.slug } }, body }))}
      aria-label="Create agent"
      noValidate
    >
      <label>
        Name
        <input {...form.register('name')} {...described(errors, 'name')} />
        <FieldError errors={errors} name="name" />
      </label>
      <label>
        Mode
        <select {...form.register('mode')}>
          <option value="test">test</option>
          <option value="live">live</option>
        </select>
      </label>
      <Submit label="Create agent" pending={create.isPending} errors={errors} />
    </form>
  );
}

function AgentDetails({ agentId }: { agentId: string }) {
  const { $api, workspace } = useConsole();
  const path = { workspace_slug: workspace.slug };
  const query = { agent_id: agentId, limit: 10 };
  const budgets = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/budgets', { params: { path, query: { agent_id: agentId, limit: 20 } } }, { select: (page) => page.data });
  const payments = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/payment_intents', { params: { path, query } });
  const actions = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/action_intents', { params: { path, query } });
  const decisions = {
    error: payments.error ?? actions.error,
    data:
      payments.data && actions.data
        ? [
            ...(payments.data.data as Schemas['PaymentIntentSchema'][]).map((p) => ({ id: p.id, at: p.created_at, what: `payment to ${p.counterparty ?? '—'}`, cents: p.amount_cents, currency: p.currency, state: p.state })),
            ...(actions.data.data as Schemas['ActionIntentSchema'][]).map((a) => ({ id: a.id, at: a.created_at, what: a.action_type, cents: a.cost_cents, currency: a.currency, state: a.state })),
          ]
            .sort((a, b) => b.at.localeCompare(a.at))
            .slice(0, 10)
        : undefined,
  };
  return (
    <div className="details">
      <h2>Budgets</h2>
      <Status query={budgets} empty="No budgets opened yet.">
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
      <Status query={decisions} empty="No decisions yet.">
        {(rows) => (
          <Table head={['When', 'What', 'Amount', 'State']}>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{when(r.at)}</td>
                <td>{r.what}</td>
                <td>{money(r.cents, r.currency)}</td>
                <td>{r.state}</td>
              </tr>
            ))}
          </Table>
        )}
      </Status>
    </div>
  );
}
