import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Injectable, NestMiddleware, RawBodyRequest } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { readStatementFile } from './statement-file';

export type StatementRequest = RawBodyRequest<Request> & { statementFile?: Buffer };

/**
 * Reads a statement upload as raw bytes (any content type, gzip accepted) into `req.statementFile`.
 * The body the idempotency fingerprint sees is the file's digest, so a retried upload replays and
 * another file under the same key is refused.
 */
@Injectable()
export class StatementBodyMiddleware implements NestMiddleware {
  async use(req: StatementRequest, _res: Response, next: NextFunction) {
    try {
      const length = req.headers['content-length'];
      // A JSON or form content type was already read by the global parsers, which keep the bytes.
      const file = req.rawBody
        ? await readStatementFile(Readable.from([req.rawBody]), req.rawBody.length)
        : await readStatementFile(req, length !== undefined && /^\d+$/.test(length) ? Number(length) : null);
      req.statementFile = file;
      req.body = { sha256: createHash('sha256').update(file).digest('hex') };
      next();
    } catch (error) {
      next(error);
    }
  }
}
