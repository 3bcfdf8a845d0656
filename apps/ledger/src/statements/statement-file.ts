import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from '@bursar/errors';
import { LedgerErrors } from '../common/ledger-errors';

/** Largest statement file accepted, after decompression. */
export const MAX_STATEMENT_BYTES = 50 * 1024 * 1024;

/**
 * The stream's bytes, at most MAX_STATEMENT_BYTES. With the length announced they are copied into
 * one buffer as they come, rather than held as chunks and then concatenated (twice the file at
 * once); a stream longer than announced falls back to chunks.
 */
async function readAll(stream: Readable, announcedBytes: number | null): Promise<Buffer> {
  let whole = announcedBytes !== null && announcedBytes <= MAX_STATEMENT_BYTES ? Buffer.allocUnsafe(announcedBytes) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the cap the rest is read and dropped rather than the stream destroyed, so the client still gets its answer.
  for await (const data of stream) {
    const chunk = data as Buffer;
    if (whole && size + chunk.length <= whole.length) chunk.copy(whole, size);
    else {
      if (whole) chunks.push(whole.subarray(0, size));
      whole = null;
      if (size + chunk.length <= MAX_STATEMENT_BYTES) chunks.push(chunk);
    }
    size += chunk.length;
  }
  if (size > MAX_STATEMENT_BYTES) {
    throw LedgerErrors.error('invalid_request', { message: `A statement file may be at most ${MAX_STATEMENT_BYTES} bytes`, param: 'body' });
  }
  return whole ? whole.subarray(0, size) : Buffer.concat(chunks);
}

/**
 * A statement file's bytes, gunzipped when they start with the gzip magic bytes (whatever the
 * headers say). `announcedBytes` (a Content-Length) lets the bytes land in one buffer as they come.
 */
export async function readStatementFile(stream: Readable, announcedBytes: number | null = null): Promise<Buffer> {
  const file = await readAll(stream, announcedBytes);
  if (file[0] !== 0x1f || file[1] !== 0x8b) return file;
  try {
    return await readAll(Readable.from([file]).pipe(createGunzip()), null);
  } catch (error) {
    // Past the size cap (our own refusal), or the stream's zlib failure: corrupt or truncated gzip.
    if (error instanceof ApiError) throw error;
    throw LedgerErrors.error('invalid_request', { message: 'The body starts as gzip but does not decompress', param: 'body' });
  }
}
