import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { Injectable, NestMiddleware, RawBodyRequest } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { LedgerErrors } from '../common/ledger-errors';

/** Largest statement file accepted, after decompression. */
export const MAX_STATEMENT_BYTES = 50 * 1024 * 1024;

export type StatementRequest = RawBodyRequest<Request> & { statementFile?: Buffer };

async function readAll(stream: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a statement upload as raw bytes (any content type; gzip by Content-Encoding or by its
 * magic bytes) into `req.statementFile`. The body the idempotency fingerprint sees is the file's
 * digest, so a retried upload replays and another file under the same key is refused.
 */
@Injectable()
export class StatementBodyMiddleware implements NestMiddleware {
  async use(req: StatementRequest, _res: Response, next: NextFunction) {
    try {
      const tooLarge = () => LedgerErrors.error('invalid_request', { message: `A statement file may be at most ${MAX_STATEMENT_BYTES} bytes`, param: 'body' });
      // A JSON or form content type was already read by the global parsers, which keep the bytes.
      let file = req.rawBody ?? (await readAll(req, MAX_STATEMENT_BYTES));
      if (file === null) throw tooLarge();
      if (req.headers['content-encoding'] === 'gzip' || (file[0] === 0x1f && file[1] === 0x8b)) {
        try {
          file = await readAll(Readable.from([file]).pipe(createGunzip()), MAX_STATEMENT_BYTES);
        } catch {
          throw LedgerErrors.error('invalid_request', { message: 'The body is not valid gzip', param: 'body' });
        }
        if (file === null) throw tooLarge();
      }
      req.statementFile = file;
      req.body = { sha256: createHash('sha256').update(file).digest('hex') };
      next();
    } catch (error) {
      next(error);
    }
  }
}
