import { IsOptional } from 'class-validator';
import { CommonSettings, IsAes256Key, IsHttpUrl, IsPort, IsPostgresUrl } from '@bursar/service-kit';

/** Environment of the ledger service, validated once at boot. */
export class LedgerSettings extends CommonSettings {
  @IsPort()
  LEDGER_PORT = 3001;

  @IsPostgresUrl()
  LEDGER_DATABASE_URL: string;

  /** AES-256 key for secrets stored at rest (webhook signing secrets, source secrets). */
  @IsAes256Key()
  LEDGER_SECRET_KEY: string;

  /** Where error `docs_url` links point; `#<code>` is appended. */
  @IsOptional()
  @IsHttpUrl()
  LEDGER_DOCS_URL = 'https://docs.bursar.dev/ledger/errors';
}
