import { hkdfSync } from 'node:crypto';
import { hmacSha256Hex, timingSafeEqualString } from '@bursar/crypto';
import { ExportFile } from './storage/export-storage';

/**
 * Signs the ledger's own download links (local storage): an HMAC-SHA256 over the ledger, export,
 * resource and expiry, keyed from LEDGER_SECRET_KEY (HKDF, a label of its own). The link is the
 * credential, so no bearer token is needed; changing any part of it, or waiting past the expiry,
 * makes it worthless.
 */
export class ExportLinkSigner {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'base64'), Buffer.alloc(0), 'bursar-ledger export link', 32));
  }

  sign(file: ExportFile, expiresUnix: number): string {
    return hmacSha256Hex(this.key, `${file.ledgerId}\n${file.exportId}\n${file.resource}\n${expiresUnix}`);
  }

  /** Whether `signature` is this file's for `expiresUnix` and that moment has not passed. */
  verify(file: ExportFile, expiresUnix: number, signature: string, now = Date.now()): boolean {
    const valid = timingSafeEqualString(signature, this.sign(file, expiresUnix));
    return valid && expiresUnix * 1000 > now;
  }
}
