import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { createHttpApp } from '@bursar/service-kit';
import { ControlErrorRenderer } from './common/control-error.renderer';
import { ControlSettings } from './config/control.settings';
import { ControlAppModule } from './control-app.module';
import { CONTROL_OPENAPI_PATH, describeControlApi, finishControlApi } from './control.openapi';

/** The control service, ready to listen; main.ts and the e2e tests both build it here. */
export async function createControlApp(settings: ControlSettings, logger: Logger): Promise<INestApplication> {
  const app = await createHttpApp(ControlAppModule.forRoot(settings, logger), {
    logger,
    renderer: new ControlErrorRenderer(),
    openapi: { path: CONTROL_OPENAPI_PATH, describe: describeControlApi, finish: finishControlApi },
  });
  // The console calls this API from its own origin with the person's bearer token (no cookies).
  if (settings.CORS_ALLOWED_ORIGINS) {
    app.enableCors({ origin: settings.CORS_ALLOWED_ORIGINS.split(','), exposedHeaders: ['Retry-After'], maxAge: 600 });
  }
  return app;
}
