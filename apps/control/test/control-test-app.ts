import { ServiceTestApp, startServiceTestApp } from '@bursar/testing';
import { ControlSettings } from '../src/config/control.settings';
import { controlDataSourceOptions } from '../src/database/control-database';
import { createControlApp } from '../src/control.app';

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
