import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { CommonSettings } from '../config/common-settings';
import { loadConfig } from '../config/load-config';
import { createLogger } from '../observability/logger';

/**
 * Listens on `port` and bounds shutdown: Nest's shutdown hooks stop accepting connections, let
 * in-flight requests finish and close pools and queues; if that takes longer than `shutdownTimeoutMs`
 * the process exits anyway so an orchestrator never waits forever.
 */
export async function runService(
  app: INestApplication,
  opts: { port: number; logger: Logger; shutdownTimeoutMs: number; name: string },
): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      opts.logger.info({ signal }, `${opts.name} shutting down`);
      setTimeout(() => {
        opts.logger.error(`${opts.name} did not stop within ${opts.shutdownTimeoutMs} ms; exiting`);
        process.exit(1);
      }, opts.shutdownTimeoutMs).unref();
    });
  }
  stopWhenParentGoes();
  await app.listen(opts.port);
  opts.logger.info({ port: opts.port }, `${opts.name} listening`);
}

/**
 * For a process started with an IPC channel (the launcher starts its services so): the channel
 * closes when the parent dies, even by SIGKILL, which no handler of the parent can report; the
 * process then stops as it does on SIGTERM instead of running on as an orphan.
 */
export function stopWhenParentGoes(): void {
  if (process.send) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** Runs `main`, turning a startup failure (bad config included) into one stderr line and exit 1. */
export function bootstrap(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

/** The whole `main.ts` of a service: settings from the environment, logger, app, listen. */
export function serveFromEnv<S extends CommonSettings>(definition: {
  name: string;
  settings: new () => S;
  port(settings: S): number;
  create(settings: S, logger: Logger): Promise<INestApplication>;
}): void {
  bootstrap(async () => {
    const settings = loadConfig(definition.settings, process.env);
    const logger = createLogger(definition.name, settings.LOG_LEVEL);
    const app = await definition.create(settings, logger);
    await runService(app, {
      name: definition.name,
      port: definition.port(settings),
      logger,
      shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    });
  });
}
