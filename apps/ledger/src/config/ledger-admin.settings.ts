import { IsOptional } from 'class-validator';
import { IsAes256Key, IsAes256KeyList, IsHttpUrl, IsPostgresUrl } from '@bursar/service-kit';

/** The operator CLI needs the database; the root keys only for `rotate-secret-key`; the public URL only to print it. */
export class LedgerAdminSettings {
  @IsPostgresUrl()
  LEDGER_DATABASE_URL: string;

  @IsOptional()
  @IsAes256Key()
  LEDGER_SECRET_KEY?: string;

  @IsOptional()
  @IsAes256KeyList()
  LEDGER_PREVIOUS_SECRET_KEYS?: string;

  @IsOptional()
  @IsHttpUrl()
  LEDGER_PUBLIC_URL?: string;
}
