import { ServiceTestApp, startServiceTestApp } from '@bursar/testing';
import { createWorkspace, seatMember } from './control-fixtures';
import { ControlSettings } from '../src/config/control.settings';
import { controlDataSourceOptions } from '../src/database/control-database';
import { createControlApp } from '../src/control.app';
import { startTestIdentityProvider, TestIdentityProvider } from './test-identity-provider';

export type ControlTestApp = ServiceTestApp<ControlSettings>;

/** The real control app on its own fresh, migrated database, initialised but not listening. */
export function startControlTestApp(label: string, env: Record<string, string> = {}): Promise<ControlTestApp> {
  return startServiceTestApp({
    name: 'control',
    prefix: 'CONTROL',
    settings: ControlSettings,
    dataSource: (s) => controlDataSourceOptions(s.CONTROL_DATABASE_URL),
    create: createControlApp,
    label,
    env,
  });
}

/** A control app and the test identity provider it trusts, which knows `people`; closing it stops both. */
export interface IdentifiedTestApp {
  t: ControlTestApp;
  idp: TestIdentityProvider;
  close(): Promise<void>;
}

export async function startIdentifiedTestApp(label: string, people: string[], env: Record<string, string> = {}): Promise<IdentifiedTestApp> {
  const idp = await startTestIdentityProvider(people);
  const t = await startControlTestApp(label, { ...idp.env, ...env });
  return {
    t,
    idp,
    close: async () => {
      await t.close();
      await idp.close();
    },
  };
}

/** A control app, the people a spec names with a token each, and one workspace they are seated in. */
export interface WorkspaceStack extends IdentifiedTestApp {
  tokens: Record<string, string>;
  workspace: { id: string; slug: string };
}

/**
 * Starts a control app whose identity provider knows `people`; the first creates the workspace (and
 * owns it), each other is seated in the role given (null: known to the provider, in no workspace).
 */
export async function startWorkspaceStack(
  label: string,
  workspace: { name: string; slug: string },
  people: Record<string, 'owner' | 'admin' | 'member' | null>,
  env: Record<string, string> = {},
): Promise<WorkspaceStack> {
  const names = Object.keys(people);
  const stack = await startIdentifiedTestApp(label, names, env);
  const tokens = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await stack.idp.token(name)] as const)));
  const created = await createWorkspace(stack.t.app, tokens[names[0]], workspace);
  for (const name of names.slice(1)) {
    const role = people[name];
    if (role) await seatMember(stack.t.app, created.id, name, role);
  }
  return { ...stack, tokens, workspace: created };
}
