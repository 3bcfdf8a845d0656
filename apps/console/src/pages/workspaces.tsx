import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import type { QueryHooks, Schemas } from '../api/client';
import { useConsole } from '../context';
import { described, FieldError, ownField, showRefusal, Submit } from '../forms';
import { ConfirmButton, ErrorBox, ShownOnce, Status, Table, when } from '../ui';

type Workspace = Schemas['WorkspaceSchema'];
type Role = Schemas['MembershipSchema']['role'];
const ROLES = ['owner', 'admin', 'member'] as const satisfies readonly Role[];
const WORKSPACES = ['get', '/control/v1/workspaces'] as const;

/** The link an invitee opens: this console, with the invitation token in the hash. */
const invitationLink = (token: string) => `${window.location.href.split('#')[0]}#/workspaces?invitation=${encodeURIComponent(token)}`;

const workspaceForm = z.object({ name: z.string().trim().min(1, 'a name is required') });
type WorkspaceForm = z.input<typeof workspaceForm>;

/** Workspaces: create and switch; members of the current one, invitations and roles. */
export function WorkspacesPage({ $api, workspaces, current, onChanged }: { $api: QueryHooks; workspaces: Workspace[]; current?: Workspace; onChanged(slug: string): void }) {
  const queryClient = useQueryClient();
  const invitation = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('invitation');
  const form = useForm<WorkspaceForm, unknown, z.output<typeof workspaceForm>>({ resolver: zodResolver(workspaceForm), defaultValues: { name: '' } });
  const { errors } = form.formState;
  const create = $api.useMutation('post', '/control/v1/workspaces', {
    onSuccess: async (res) => {
      form.reset();
      await queryClient.invalidateQueries({ queryKey: WORKSPACES });
      onChanged(res.data.slug);
    },
    onError: (err) => showRefusal(err, form.setError, ownField(['name'])),
  });
  return (
    <section aria-labelledby="workspaces-title">
      <h1 id="workspaces-title">Workspaces</h1>
      {invitation && <AcceptInvitation $api={$api} token={invitation} onAccepted={onChanged} />}
      {workspaces.length === 0 ? (
        <p className="empty">No workspaces yet.</p>
      ) : (
        <ul className="plain">
          {workspaces.map((w) => (
            <li key={w.slug}>
              <strong>{w.name}</strong> <span className="muted">{w.slug} · {w.role}</span>{' '}
              {w.slug === current?.slug ? (
                <span className="badge">current</span>
              ) : (
                <button type="button" onClick={() => onChanged(w.slug)}>
                  Switch
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="inline" onSubmit={form.handleSubmit((body) => create.mutate({ body }))} aria-label="Create workspace" noValidate>
        <label>
          New workspace name
          <input {...form.register('name')} {...described(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </label>
        <Submit label="Create workspace" pending={create.isPending} errors={errors} />
      </form>
      {current && <Members />}
    </section>
  );
}

function AcceptInvitation({ $api, token, onAccepted }: { $api: QueryHooks; token: string; onAccepted(slug: string): void }) {
  const queryClient = useQueryClient();
  const lookup = $api.useQuery('get', '/control/v1/invitations/lookup', { params: { query: { token } } });
  const accept = $api.useMutation('post', '/control/v1/invitations/accept', {
    onSuccess: async (res) => {
      window.location.hash = '#/workspaces';
      await queryClient.invalidateQueries({ queryKey: WORKSPACES });
      onAccepted(res.data.workspace_slug);
    },
  });
  if (!lookup.data) return lookup.error ? <ErrorBox error={lookup.error} /> : <p aria-busy="true">Reading the invitation…</p>;
  const inv = lookup.data.data;
  return (
    <div className="card">
      <p>
        Invitation for {inv.email} to <strong>{inv.workspace_name}</strong> as {inv.role}, until {when(inv.expires_at)}.
      </p>
      {!inv.matches_account && <p className="note">You are signed in as {inv.signed_in_as}; accepting makes that account the member.</p>}
      {inv.already_member ? (
        <p className="note">You are already a member.</p>
      ) : (
        <button type="button" disabled={accept.isPending} onClick={() => accept.mutate({ body: { token } })}>
          Accept invitation
        </button>
      )}
      <ErrorBox error={accept.error} />
    </div>
  );
}

const inviteForm = z.object({ email: z.email('an email address'), role: z.enum(ROLES) });
type InviteForm = z.input<typeof inviteForm>;

function Members() {
  const { $api, workspace, can } = useConsole();
  const queryClient = useQueryClient();
  const path = { workspace_slug: workspace.slug };
  const members = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/memberships', { params: { path, query: { limit: 200 } } }, { select: (page) => page.data });
  const [link, setLink] = useState<string | null>(null);
  const form = useForm<InviteForm, unknown, z.output<typeof inviteForm>>({ resolver: zodResolver(inviteForm), defaultValues: { email: '', role: 'member' } });
  const { errors } = form.formState;
  const invite = $api.useMutation('post', '/control/v1/workspaces/{workspace_slug}/invitations', {
    onSuccess: (res) => {
      setLink(invitationLink(res.data.token));
      form.reset();
    },
    onError: (err) => showRefusal(err, form.setError, ownField(['email', 'role'])),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['get', '/control/v1/workspaces/{workspace_slug}/memberships'] });
  return (
    <>
      <h2>Members of {workspace.name}</h2>
      <Status query={members} empty="No members.">
        {(rows) => (
          <Table head={['Person', 'Role', 'Since']}>
            {rows.map((m) => (
              <tr key={m.id}>
                <td>{m.email ?? m.user_sub}</td>
                <td>{can('manage_members') ? <RoleSelect member={m} onChanged={refresh} /> : m.role}</td>
                <td>{when(m.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Status>
      {can('manage_members') && (
        <form className="inline" onSubmit={form.handleSubmit((body) => invite.mutate({ params: { path }, body }))} aria-label="Invite member" noValidate>
          <label>
            Invite by email
            <input type="email" {...form.register('email')} {...described(errors, 'email')} />
            <FieldError errors={errors} name="email" />
          </label>
          <label>
            Role
            <select {...form.register('role')}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <Submit label="Invite" pending={invite.isPending} errors={errors} />
        </form>
      )}
      {link && <ShownOnce label="Invitation link" value={link} />}
    </>
  );
}

function RoleSelect({ member, onChanged }: { member: Schemas['MembershipSchema']; onChanged(): Promise<void> }) {
  const { $api, workspace } = useConsole();
  const [next, setNext] = useState<Role>(member.role);
  const change = $api.useMutation('patch', '/control/v1/workspaces/{workspace_slug}/memberships/{id}', { onSuccess: onChanged });
  return (
    <span className="role">
      <select aria-label={`Role of ${member.email ?? member.user_sub}`} value={next} onChange={(e) => setNext(e.target.value as Role)}>
        {ROLES.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      {next !== member.role && (
        <ConfirmButton
          label="Change role"
          question={`Make ${member.email ?? member.user_sub} ${next}?`}
          onConfirm={async () => {
            await change.mutateAsync({ params: { path: { workspace_slug: workspace.slug, id: member.id } }, body: { role: next } });
          }}
        />
      )}
    </span>
  );
}
