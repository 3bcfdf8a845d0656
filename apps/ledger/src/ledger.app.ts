import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { createHttpApp } from '@bursar/service-kit';
import { LedgerErrorRenderer } from './common/ledger-error.renderer';
import { LedgerSettings } from './config/ledger.settings';
import { LedgerAppModule } from './ledger-app.module';
import { LEDGER_OPENAPI_PATH, describeLedgerApi } from './ledger.openapi';

/** The ledger service, ready to listen; main.ts and the e2e tests both build it here. */
export function createLedgerApp(settings: LedgerSettings, logger: Logger): Promise<INestApplication> {
  return createHttpApp(LedgerAppModule.forRoot(settings, logger), {
    logger,
    renderer: new LedgerErrorRenderer(settings.LEDGER_DOCS_URL),
    openapi: { path: LEDGER_OPENAPI_PATH, describe: describeLedgerApi },
  });
}
