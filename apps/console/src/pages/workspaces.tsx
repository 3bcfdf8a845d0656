import { FormEvent, useState } from 'react';
import { Api, Schemas, unwrap } from '../api/client';
import { useConsole } from '../context';
import { ConfirmButton, ErrorBox, ShownOnce, Status, useLoad, when } from '../ui';

type Workspace = Schemas['WorkspaceSchema'];
type Role = Schemas['MembershipSchema']['role'];
const ROLES: Role[] = ['owner', 'admin', 'member'];

/** The link an invitee opens: this console, with the invitation token in the hash. */
const invitationLink = (token: string) => `${window.location.href.split('#')[0]}#/workspaces?invitation=${encodeURIComponent(token)}`;

/** Workspaces: create and switch; members of the current one, invitations and roles. */
export function WorkspacesPage({ api, workspaces, current, onChanged }: { api: Api; workspaces: Workspace[]; current?: Workspace; onChanged(slug: string): void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const invitation = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('invitation');
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const res = await unwrap(api.POST('/control/v1/workspaces', { body: { name } }));
      setName('');
      onChanged(res.data.slug);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="workspaces-title">
      <h1 id="workspaces-title">Workspaces</h1>
      {invitation && <AcceptInvitation api={api} token={invitation} onAccepted={onChanged} />}
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
      <form className="inline" onSubmit={create} aria-label="Create workspace">
        <label>
          New workspace name
          <input name="workspace-name" value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <button type="submit">Create workspace</button>
        <ErrorBox error={error} />
      </form>
      {current && <Members />}
    </section>
  );
}

function AcceptInvitation({ api, token, onAccepted }: { api: Api; token: string; onAccepted(slug: string): void }) {
  const lookup = useLoad(() => unwrap(api.GET('/control/v1/invitations/lookup', { params: { query: { token } } })), [api, token]);
  const [error, setError] = useState<unknown>();
  if (!lookup.data) return lookup.error ? <ErrorBox error={lookup.error} /> : <p aria-busy="true">Reading the invitation…</p>;
  const inv = lookup.data.data;
  return (
    <div className="card">
      <p>
        Invitation for {inv.email} to <strong>{inv.workspace_name}</strong> as {inv.role}, until {when(inv.expires_at)}.
      </p>
      {!inv.matches_account && (
        <p className="note">
          You are signed in as {inv.signed_in_as}; accepting makes that account the member.
        </p>
      )}
      {inv.already_member ? (
        <p className="note">You are already a member.</p>
      ) : (
        <button
          type="button"
          onClick={() =>
            unwrap(api.POST('/control/v1/invitations/accept', { body: { token } })).then((res) => {
              window.location.hash = '#/workspaces';
              onAccepted(res.data.workspace_slug);
            }, setError)
          }
        >
          Accept invitation
        </button>
      )}
      <ErrorBox error={error} />
    </div>
  );
}

function Members() {
  const { api, workspace, can } = useConsole();
  const path = { workspace_slug: workspace.slug };
  const members = useLoad(async () => (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/memberships', { params: { path, query: { limit: 200 } } }))).data, [api, workspace.slug]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const invite = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const res = await unwrap(api.POST('/control/v1/workspaces/{workspace_slug}/invitations', { params: { path }, body: { email, role } }));
      setLink(invitationLink(res.data.token));
      setEmail('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h2>Members of {workspace.name}</h2>
      <Status loaded={members} empty="No members.">
        {(rows) => (
          <table>
            <thead>
              <tr>
                <th>Person</th>
                <th>Role</th>
                <th>Since</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id}>
                  <td>{m.email ?? m.user_sub}</td>
                  <td>{can('manage_members') ? <RoleSelect member={m} onChanged={members.reload} /> : m.role}</td>
                  <td>{when(m.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Status>
      {can('manage_members') && (
        <form className="inline" onSubmit={invite} aria-label="Invite member">
          <label>
            Invite by email
            <input type="email" name="invite-email" value={email} onChange={(e) => setEmail(e.target.value)} required />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <button type="submit">Invite</button>
          <ErrorBox error={error} />
        </form>
      )}
      {link && <ShownOnce label="Invitation link" value={link} />}
    </>
  );
}

function RoleSelect({ member, onChanged }: { member: Schemas['MembershipSchema']; onChanged(): void }) {
  const { api, workspace } = useConsole();
  const [next, setNext] = useState<Role>(member.role);
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
            await unwrap(
              api.PATCH('/control/v1/workspaces/{workspace_slug}/memberships/{id}', {
                params: { path: { workspace_slug: workspace.slug, id: member.id } },
                body: { role: next },
              }),
            );
            onChanged();
          }}
        />
      )}
    </span>
  );
}
