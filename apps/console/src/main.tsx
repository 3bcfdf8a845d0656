import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { Auth } from './auth';
import { loadConfig } from './config';
import { QueryClientProvider } from '@tanstack/react-query';
import { createApi, createQueryClient, queryHooks } from './api/client';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);

async function start() {
  const config = await loadConfig();
  const auth = await Auth.discover(config);
  const session = await auth.resume();
  if (!session) {
    root.render(
      <main className="signin">
        <h1>Bursar console</h1>
        <p>Approve, watch and steer your agents' spending.</p>
        <button type="button" autoFocus onClick={() => void auth.signIn()}>
          Sign in
        </button>
      </main>,
    );
    return;
  }
  const api = createApi(config.controlUrl, session);
  root.render(
    <StrictMode>
      <QueryClientProvider client={createQueryClient()}>
        <App api={api} $api={queryHooks(api)} session={session} />
      </QueryClientProvider>
    </StrictMode>,
  );
}

start().catch((err: unknown) => {
  root.render(
    <main className="signin">
      <h1>Bursar console</h1>
      <div className="error" role="alert">
        Could not start: {err instanceof Error ? err.message : String(err)}
      </div>
      <button type="button" onClick={() => window.location.assign(window.location.pathname)}>
        Try again
      </button>
    </main>,
  );
});
