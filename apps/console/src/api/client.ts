import createClient from 'openapi-fetch';
import createQueryHooks from 'openapi-react-query';
import { QueryClient } from '@tanstack/react-query';
import type { components, paths } from './control-api';
import type { Session } from '../auth';
import { ApiError, envelopeOf } from './api-error';

export { ApiError } from './api-error';

export type Schemas = components['schemas'];

/**
 * control's API, typed from the committed OpenAPI snapshot (control-openapi.json -> control-api.d.ts,
 * checked against the running service by the console's e2e test): a changed route or field breaks
 * `pnpm typecheck`, not the page. Every call carries the person's current access token, and every
 * refusal rejects with an ApiError, so callers handle one kind of failure.
 */
export function createApi(baseUrl: string, session: Session) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    async onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${await session.token()}`);
      return request;
    },
    async onResponse({ response }) {
      if (response.ok) return undefined;
      const body: unknown = await response.clone().json().catch(() => null);
      throw new ApiError(envelopeOf(body, response.status), response.status);
    },
    onError({ error }) {
      // A cancelled query stays a cancellation; anything else is control being out of reach.
      if (error instanceof DOMException && error.name === 'AbortError') return undefined;
      const message = `Could not reach control: ${error instanceof Error ? error.message : String(error)}`;
      return new ApiError({ message, code: null, hint: 'Check your connection and that control is running' }, 0);
    },
  });
  return client;
}

export type Api = ReturnType<typeof createApi>;
/** TanStack Query hooks over the typed client: `$api.useQuery('get', path, init)`, `$api.useMutation(...)`. */
export const queryHooks = (api: Api) => createQueryHooks(api);
export type QueryHooks = ReturnType<typeof queryHooks>;

/** The `data` of a successful call (a failed one has already rejected with an ApiError). */
export async function unwrap<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

/** Retries only what may pass on a second try: control out of reach or briefly unavailable. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => failures < 2 && error instanceof ApiError && (error.status === 0 || error.status === 503),
        staleTime: 2_000,
      },
      mutations: { retry: false },
    },
  });
}
