import { IsAes256Key, IsPostgresUrl } from '@bursar/service-kit';

/** The operator CLI needs the database and the key that seals cosigning keys. */
export class ControlAdminSettings {
  @IsPostgresUrl()
  CONTROL_DATABASE_URL: string;

  @IsAes256Key()
  CONTROL_SECRET_KEY: string;
}
