import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, runOperatorCli, withLauncherSettings } from '@bursar/service-kit';
import { CONTROL_ADMIN, CONTROL_ADMIN_COMMANDS, runControlAdmin } from './admin/control-admin';
import { createTestAgent } from './admin/test-agent';
import { ControlAdminSettings } from './config/control-admin.settings';
import { TestAgentSettings } from './config/test-agent.settings';
import { controlDataSourceOptions } from './database/control-database';

/**
 * `pnpm control:admin …`: operator commands (key rotations) outside the HTTP API, and a test agent
 * for SDK users made through it. Settings come from the environment, completed from what `pnpm start` uses.
 */
runOperatorCli(CONTROL_ADMIN, CONTROL_ADMIN_COMMANDS, async (argv) => {
  const env = withLauncherSettings(process.env);
  // Through the running stack's API, as an SDK user works: no database of its own.
  if (argv[0] === 'create-test-agent') return createTestAgent(argv, loadConfig(TestAgentSettings, env));
  const settings = loadConfig(ControlAdminSettings, env);
  const dataSource = await new DataSource(controlDataSourceOptions(settings.CONTROL_DATABASE_URL)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const result = await runControlAdmin(argv, dataSource, settings);
    // A log that does not verify is printed like any result, and fails the command.
    if (result.ok === false) process.exitCode = 1;
    return result;
  } finally {
    await dataSource.destroy();
  }
});
