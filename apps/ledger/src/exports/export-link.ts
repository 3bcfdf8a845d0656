import { hmacSha256Hex, KEY_PURPOSES, type RootKeys, timingSafeEqualString } from '@bursar/crypto';
import { ExportFile } from './storage/export-storage';

/**
 * Signs the ledger's own download links (local storage): an HMAC-SHA256 over the ledger, export,
 * resource and expiry, keyed from LEDGER_SECRET_KEY (HKDF, a label of its own). The link is the
 * credential, so no bearer token is needed; changing any part of it, or waiting past the expiry,
 * makes it worthless.
 */
export class ExportLinkSigner {
  /** Signing key first; links signed under a previous root key verify until they expire. */
  private readonly keys: Buffer[];

  constructor(rootKeys: RootKeys) {
    this.keys = rootKeys.subkeys(KEY_PURPOSES.exportLinks);
  }

  sign(file: ExportFile, expiresUnix: number, key = this.keys[0]): string {
    return hmacSha256Hex(key, `${file.ledgerId}\n${file.exportId}\n${file.resource}\n${expiresUnix}`);
  }

  /** Whether `signature` is this file's for `expiresUnix` and that moment has not passed. */
  verify(file: ExportFile, expiresUnix: number, signature: string, now = Date.now()): boolean {
    const valid = this.keys.some((key) => timingSafeEqualString(signature, this.sign(file, expiresUnix, key)));
    return valid && expiresUnix * 1000 > now;
  }
}
