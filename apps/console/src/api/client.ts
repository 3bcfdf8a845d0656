import createClient from 'openapi-fetch';
import type { components, paths } from './control-api';
import type { Session } from '../auth';

export type Schemas = components['schemas'];
export type Api = ReturnType<typeof createApi>;

/** An API failure as the envelope states it (`{error: {message, code}}`), or a network failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly status: number,
    /** The envelope's extra fields (`param` and the like) for showing an error next to a field. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * control's API, typed from the committed OpenAPI snapshot (control-openapi.json -> control-api.d.ts,
 * checked against the running service by the console's e2e test): a changed route or field breaks
 * `pnpm typecheck`, not the page. Every call carries the person's current access token.
 */
export function createApi(baseUrl: string, session: Session) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    async onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${await session.token()}`);
      return request;
    },
  });
  return client;
}

/** The `data` of a successful call; otherwise an ApiError carrying the envelope's message and code. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (err) {
    throw new ApiError(`Could not reach control: ${err instanceof Error ? err.message : String(err)}`, null, 0);
  }
  if (result.response.ok) return result.data as T;
  const envelope = (result.error ?? {}) as { error?: { message?: string; code?: string | null } & Record<string, unknown> };
  const { message, code, ...details } = envelope.error ?? {};
  throw new ApiError(message ?? `control answered ${result.response.status}`, code ?? null, result.response.status, details);
}
