import { ServiceTestApp, startServiceTestApp } from '@bursar/testing';
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
