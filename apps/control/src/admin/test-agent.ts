import { parseArgs } from 'node:util';
import { ApiError } from '@bursar/errors';
import { TestAgentSettings } from '../config/test-agent.settings';
import { devIdentityToken, tokenCommand } from '../dev-identity/dev-identity-token';

const DEFAULT_PERSON = 'developer@example.com';

/** One call to the control API; its error envelope becomes the command's error (code and message kept). */
async function call(base: string, token: string, route: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).catch((e: unknown) => {
    throw new Error(`control does not answer at ${base} (${(e as { cause?: Error }).cause?.message ?? String(e)}); is \`pnpm start\` running?`);
  });
  const json = (await res.json().catch(() => ({}))) as { data?: Record<string, unknown>; error?: { code?: string; message?: string } };
  if (!res.ok || !json.data) {
    throw new ApiError(res.status, json.error?.code ?? 'failed', `POST ${route} answered ${res.status}: ${json.error?.message ?? 'no data'}`);
  }
  return json.data;
}

/**
 * A person's workspace with one test-mode agent, made through the API: what an SDK user needs to
 * start, in one JSON object (the agent key is shown only here; the identity token expires, and
 * `identity_token_command` fetches a fresh one).
 */
export async function createTestAgent(argv: string[], settings: TestAgentSettings): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args: argv, allowPositionals: true, options: { name: { type: 'string' }, email: { type: 'string' } } });
  const person = values.email ?? DEFAULT_PERSON;
  const base = settings.GATEWAY_URL.replace(/\/+$/, '');
  const identity = await devIdentityToken(settings.IDENTITY_ISSUER, person, settings.DEV_IDENTITY_SECRET);
  const workspace = await call(base, identity.access_token, '/control/v1/workspaces', { name: values.name ?? 'Local development' });
  const agent = await call(base, identity.access_token, `/control/v1/workspaces/${String(workspace.slug)}/agents`, { name: 'Test agent', mode: 'test' });
  return {
    base_url: base,
    workspace_id: workspace.id,
    workspace_slug: workspace.slug,
    agent_id: agent.id,
    mode: agent.mode,
    agent_key: agent.api_key,
    agent_key_note: 'Shown once: only a digest is stored. It reaches /control/v1/agent/* only.',
    identity_token: identity.access_token,
    identity_token_expires_at: new Date(Date.now() + identity.expires_in * 1000).toISOString(),
    identity_token_person: person,
    identity_token_command: tokenCommand(settings.IDENTITY_ISSUER, person, settings.DEV_IDENTITY_SECRET),
  };
}
