import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { createHttpApp } from '@bursar/service-kit';
import { ControlErrorRenderer } from './common/control-error.renderer';
import { ControlSettings } from './config/control.settings';
import { ControlAppModule } from './control-app.module';
import { CONTROL_OPENAPI_PATH, describeControlApi, finishControlApi } from './control.openapi';

/** The control service, ready to listen; main.ts and the e2e tests both build it here. */
export function createControlApp(settings: ControlSettings, logger: Logger): Promise<INestApplication> {
  return createHttpApp(ControlAppModule.forRoot(settings, logger), {
    logger,
    renderer: new ControlErrorRenderer(),
    openapi: { path: CONTROL_OPENAPI_PATH, describe: describeControlApi, finish: finishControlApi },
  });
}
