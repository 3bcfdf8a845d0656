import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { ErrorRenderer } from '@bursar/errors';
import { createHttpApp } from '@bursar/service-kit';
import { LedgerErrorRenderer } from './common/ledger-error.renderer';
import { OauthErrorRenderer, TOKEN_PATH } from './oauth/oauth-error.renderer';
import { LedgerSettings } from './config/ledger.settings';
import { LedgerAppModule } from './ledger-app.module';
import { LEDGER_OPENAPI_PATH, describeLedgerApi, finishLedgerApi } from './ledger.openapi';

/**
 * Failures raised before routing (a body the parser refused) reach the global filter; the token
 * endpoint's still get its RFC 6749 body.
 */
function byPath(fallback: ErrorRenderer, routes: Record<string, ErrorRenderer>): ErrorRenderer {
  return { render: (error, req) => (routes[req.path] ?? fallback).render(error, req) };
}

/** The ledger service, ready to listen; main.ts and the e2e tests both build it here. */
export async function createLedgerApp(settings: LedgerSettings, logger: Logger): Promise<INestApplication> {
  const app = await createHttpApp(LedgerAppModule.forRoot(settings, logger), {
    logger,
    renderer: byPath(new LedgerErrorRenderer(settings.LEDGER_DOCS_URL), { [TOKEN_PATH]: new OauthErrorRenderer() }),
    openapi: { path: LEDGER_OPENAPI_PATH, describe: describeLedgerApi, finish: finishLedgerApi },
  });
  // Map filters arrive as `metadata[k]=v` and `tags[k]=v` (the reference SDK's encoding).
  (app as NestExpressApplication).set('query parser', 'extended');
  return app;
}
