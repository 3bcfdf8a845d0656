import { INestApplication, Type, DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { EnvelopeExceptionFilter, ErrorRenderer } from '@bursar/errors';
import { PinoNestLogger } from '../observability/logger';
import { MetricsService } from '../observability/metrics.service';
import { requestContextMiddleware } from '../observability/request-context.middleware';
import { toOpenApi31 } from './openapi-31';
import { createValidationPipe } from './validation.pipe';

/**
 * Nest turns body-parser's SyntaxError into a bare BadRequestException carrying the parser's message,
 * losing that the body was unreadable; passed on as a plain error it keeps its `status` and `type`.
 */
function keepParseFailures(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  if (!(err instanceof SyntaxError) || !('type' in err)) return next(err);
  next(Object.assign(new Error(err.message), { status: (err as { status?: number }).status ?? 400, type: err.type, expose: true }));
}

export interface OpenApiOptions {
  /** Where the JSON document is served, e.g. `/ledger/v1/openapi.json`. */
  path: string;
  /** Adds the service's title, servers, security schemes and shared schemas. */
  describe(builder: DocumentBuilder): DocumentBuilder;
  /** Final touches to the generated document (shared component schemas, say). */
  finish?(document: OpenAPIObject): OpenAPIObject;
}

export interface HttpAppOptions {
  logger: Logger;
  renderer: ErrorRenderer;
  openapi?: OpenApiOptions;
  /** Largest JSON body accepted. */
  bodyLimit?: string;
}

/**
 * Builds a service's Nest application, not yet listening: request ids and access logs, request
 * metrics, the service's error envelope for every failure, DTO validation, the OpenAPI document.
 * `main.ts` and the e2e tests both start services through here, so tests exercise the real stack.
 */
export async function createHttpApp(
  module: Type<unknown> | DynamicModule,
  options: HttpAppOptions,
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, {
    logger: new PinoNestLogger(options.logger),
    bodyParser: false,
    // The parsers below also keep the exact bytes as `req.rawBody`, so inbound webhook HMACs are
    // checked over what was sent, not a re-serialisation; the body limits still apply.
    rawBody: true,
  });
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(requestContextMiddleware(options.logger));
  app.use(app.get(MetricsService).middleware);
  app.useBodyParser('json', { limit: options.bodyLimit ?? '1mb' });
  app.useBodyParser('urlencoded', { extended: false, limit: options.bodyLimit ?? '1mb' });
  app.use(keepParseFailures);
  app.useGlobalFilters(new EnvelopeExceptionFilter(options.renderer));
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  if (options.openapi) {
    const { path, describe, finish = (d: OpenAPIObject) => d } = options.openapi;
    const config = describe(new DocumentBuilder().setOpenAPIVersion('3.1.0')).build();
    const document = toOpenApi31(finish(SwaggerModule.createDocument(app, config)));
    const http = app.getHttpAdapter();
    http.get(path, (_req: unknown, res: unknown) => http.reply(res, document, 200));
  }
  return app;
}
