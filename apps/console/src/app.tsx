import { useEffect, useState } from 'react';
import type { Api, QueryHooks, Schemas } from './api/client';
import type { Session } from './auth';
import { Ctx } from './context';
import { ErrorBox } from './ui';
import { ApprovalsPage } from './pages/approvals';
import { AgentsPage } from './pages/agents';
import { SpendingPage } from './pages/spending';
import { PoliciesPage } from './pages/policies';
import { AuditPage } from './pages/audit';
import { WorkspacesPage } from './pages/workspaces';

const PAGES = [
  ['approvals', 'Approvals'],
  ['agents', 'Agents'],
  ['spending', 'Spending'],
  ['policies', 'Policies'],
  ['audit', 'Audit log'],
  ['workspaces', 'Workspaces'],
] as const;
const WORKSPACE_PAGES = { approvals: ApprovalsPage, agents: AgentsPage, spending: SpendingPage, policies: PoliciesPage, audit: AuditPage };
type PageId = (typeof PAGES)[number][0];

const WORKSPACE = 'bursar.console.workspace';

/** `#/<page>`: hash routing keeps the console plain static files wherever it is served. */
function useRoute(): PageId {
  const read = () => {
    const id = window.location.hash.replace(/^#\/?/, '').split('?')[0];
    return (PAGES.some(([p]) => p === id) ? id : 'approvals') as PageId;
  };
  const [page, setPage] = useState(read);
  useEffect(() => {
    const onHash = () => setPage(read());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return page;
}

export function App({ api, $api, session }: { api: Api; $api: QueryHooks; session: Session }) {
  const page = useRoute();
  const [slug, setSlug] = useState(() => localStorage.getItem(WORKSPACE) ?? '');
  // GET /workspaces is not paginated; its 200 body has no schema in the document, so it is typed here.
  const workspaces = $api.useQuery('get', '/control/v1/workspaces', undefined, {
    select: (body) => (body as unknown as { data: Schemas['WorkspaceSchema'][] }).data,
  });
  const list = workspaces.data ?? [];
  const workspace = list.find((w) => w.slug === slug) ?? list[0];
  const choose = (next: string) => {
    localStorage.setItem(WORKSPACE, next);
    setSlug(next);
  };

  return (
    <>
      <header>
        <a className="skip" href="#content">
          Skip to content
        </a>
        <strong className="brand">Bursar</strong>
        {list.length > 0 && (
          <label className="switch">
            <span>Workspace</span>
            <select value={workspace?.slug} onChange={(e) => choose(e.target.value)} aria-label="Workspace">
              {list.map((w) => (
                <option key={w.slug} value={w.slug}>
                  {w.name} ({w.role})
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="who">{session.email}</span>
        <button type="button" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Pages">
        {PAGES.map(([id, label]) => (
          <a key={id} href={`#/${id}`} aria-current={id === page ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <main id="content">
        <ErrorBox error={workspaces.error} />
        {workspaces.data === undefined && !workspaces.error ? (
          <p aria-busy="true">Loading…</p>
        ) : workspace || page === 'workspaces' ? (
          <Ctx.Provider
            value={
              workspace
                ? { api, $api, workspace, can: (c) => workspace.capabilities.includes(c) }
                : null
            }
          >
            {page === 'workspaces' ? (
              <WorkspacesPage $api={$api} workspaces={list} current={workspace} onChanged={choose} />
            ) : (
              (() => {
                const Page = WORKSPACE_PAGES[page];
                return <Page key={workspace.slug} />;
              })()
            )}
          </Ctx.Provider>
        ) : (
          <p className="empty">
            You are not a member of any workspace yet. <a href="#/workspaces">Create one</a> or open an invitation link.
          </p>
        )}
      </main>
    </>
  );
}
