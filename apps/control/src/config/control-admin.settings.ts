import { IsOptional } from 'class-validator';
import { IsAes256Key, IsAes256KeyList, IsPostgresUrl } from '@bursar/service-kit';
import { withCosignTiming } from './cosign-timing.settings';

/** The operator CLI needs the database, the key that seals cosigning keys, and when a rotated key may sign. */
export class ControlAdminSettings extends withCosignTiming(class {}) {
  @IsPostgresUrl()
  CONTROL_DATABASE_URL: string;

  @IsAes256Key()
  CONTROL_SECRET_KEY: string;

  @IsOptional()
  @IsAes256KeyList()
  CONTROL_PREVIOUS_SECRET_KEYS?: string;
}
