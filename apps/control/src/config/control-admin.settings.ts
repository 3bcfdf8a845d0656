import { IsAes256Key, IsPostgresUrl } from '@bursar/service-kit';
import { withCosignTiming } from './cosign-timing.settings';

/** The operator CLI needs the database, the key that seals cosigning keys, and when a rotated key may sign. */
export class ControlAdminSettings extends withCosignTiming(class {}) {
  @IsPostgresUrl()
  CONTROL_DATABASE_URL: string;

  @IsAes256Key()
  CONTROL_SECRET_KEY: string;
}
