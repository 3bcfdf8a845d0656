import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '@bursar/errors';
import { LedgerErrors } from '../common/ledger-errors';

/** Largest statement file accepted, after decompression. */
export const MAX_STATEMENT_BYTES = 50 * 1024 * 1024;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the cap the rest is read and dropped rather than the stream destroyed, so the client still gets its answer.
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size <= MAX_STATEMENT_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_STATEMENT_BYTES) {
    throw LedgerErrors.error('invalid_request', { message: `A statement file may be at most ${MAX_STATEMENT_BYTES} bytes`, param: 'body' });
  }
  return Buffer.concat(chunks);
}

/** A statement file's bytes, gunzipped when they start with the gzip magic bytes (whatever the headers say). */
export async function readStatementFile(stream: Readable): Promise<Buffer> {
  const file = await readAll(stream);
  if (file[0] !== 0x1f || file[1] !== 0x8b) return file;
  try {
    return await readAll(Readable.from([file]).pipe(createGunzip()));
  } catch (error) {
    // Past the size cap (our own refusal), or the stream's zlib failure: corrupt or truncated gzip.
    if (error instanceof ApiError) throw error;
    throw LedgerErrors.error('invalid_request', { message: 'The body starts as gzip but does not decompress', param: 'body' });
  }
}
