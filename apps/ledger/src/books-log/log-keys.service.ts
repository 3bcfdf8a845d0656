import { Inject, Injectable } from '@nestjs/common';
import { SigningKeyRing } from '@bursar/service-kit';
import { DataSource } from 'typeorm';
import { LedgerSettings } from '../config/ledger.settings';

/** The AAD binds a sealed private key to its kid, so sealed values cannot be swapped between rows. */
export const logKeyAad = (kid: string) => `log_signing_key:${kid}`;

export type LogKeysSettings = Pick<LedgerSettings, 'rootKeys' | 'LEDGER_LOG_KEY_RELOAD_MS' | 'LEDGER_LOG_KEY_ACTIVATION_DELAY_MS'>;

/** The keys that sign the books logs' checkpoints, published at /ledger/v1/log/jwks.json and /.well-known/jwks.json. */
@Injectable()
export class LogKeysService extends SigningKeyRing {
  constructor(dataSource: DataSource, @Inject(LedgerSettings) settings: LogKeysSettings) {
    super(dataSource, {
      table: 'log_signing_keys',
      aad: logKeyAad,
      box: settings.rootKeys.sealedRows(),
      reloadMs: settings.LEDGER_LOG_KEY_RELOAD_MS,
      activationDelayMs: settings.LEDGER_LOG_KEY_ACTIVATION_DELAY_MS,
    });
  }
}
