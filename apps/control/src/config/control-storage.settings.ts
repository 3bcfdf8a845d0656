import { IsOptional } from 'class-validator';
import { RootKeys } from '@bursar/crypto';
import { IsAes256Key, IsAes256KeyList, IsPostgresUrl } from '@bursar/service-kit';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Constructor<T = object> = new (...args: any[]) => T;

/**
 * Adds the database and the root keys of sealed rows to a settings class: the service and the
 * operator CLI open the same database and the same sealed columns, so both validate them alike.
 */
export function withControlStorage<B extends Constructor>(Base: B) {
  class WithControlStorage extends Base {
    @IsPostgresUrl()
    CONTROL_DATABASE_URL: string;

    /** Root key (base64 of 32 bytes); sealed rows (cosign private keys, webhook secrets) use its HKDF subkey. */
    @IsAes256Key()
    CONTROL_SECRET_KEY: string;

    /** Root keys replaced by CONTROL_SECRET_KEY (comma list): values sealed under them still open until re-sealed. */
    @IsOptional()
    @IsAes256KeyList()
    CONTROL_PREVIOUS_SECRET_KEYS?: string;

    get rootKeys(): RootKeys {
      return RootKeys.fromSettings(this.CONTROL_SECRET_KEY, this.CONTROL_PREVIOUS_SECRET_KEYS);
    }
  }
  return WithControlStorage;
}
