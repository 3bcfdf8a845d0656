import { IsOptional, IsString } from 'class-validator';
import { CommonSettings, IsAes256Key, IsHttpUrl, IsPort, IsPostgresUrl } from '@bursar/service-kit';

/** Environment of the control service, validated once at boot. */
export class ControlSettings extends CommonSettings {
  @IsPort()
  CONTROL_PORT = 3000;

  @IsPostgresUrl()
  CONTROL_DATABASE_URL: string;

  /** AES-256 key for secrets stored at rest (cosign private keys, webhook secrets). */
  @IsAes256Key()
  CONTROL_SECRET_KEY: string;

  /** Issuer of cosignatures; cosigning is off when unset. */
  @IsOptional()
  @IsHttpUrl()
  COSIGN_ISSUER?: string;

  /** Issuer whose JWT access tokens identify people; workspace routes answer 503 while unset. */
  @IsOptional()
  @IsHttpUrl()
  IDENTITY_ISSUER?: string;

  /** Required `aud` of identity tokens; any audience is accepted when unset. */
  @IsOptional()
  @IsString()
  IDENTITY_AUDIENCE?: string;

  /** Where the issuer publishes its keys; read from the issuer's discovery document when unset. */
  @IsOptional()
  @IsHttpUrl()
  IDENTITY_JWKS_URL?: string;
}
