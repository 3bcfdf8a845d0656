import { IsPostgresUrl } from '@bursar/service-kit';

/** The operator CLI only needs the database; it holds no keys. */
export class LedgerAdminSettings {
  @IsPostgresUrl()
  LEDGER_DATABASE_URL: string;
}
