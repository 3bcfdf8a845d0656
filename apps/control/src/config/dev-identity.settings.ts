import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { CommonSettings, IntSetting, IsHttpUrl, IsPort } from '@bursar/service-kit';

/** Environment of the development identity provider (`pnpm start` runs it when no IDENTITY_ISSUER is set). */
export class DevIdentitySettings extends CommonSettings {
  @IsPort()
  DEV_IDENTITY_PORT = 3009;

  /** Issuer URL the tokens carry; http://127.0.0.1:<port> when unset. */
  @IsOptional()
  @IsHttpUrl()
  DEV_IDENTITY_ISSUER?: string;

  /** The one client secret every development person authenticates with (sent in HTTP Basic, so URL-safe). */
  @IsString()
  @Length(16, 200)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'DEV_IDENTITY_SECRET must be letters, digits, - and _ only' })
  DEV_IDENTITY_SECRET: string;

  /** `aud` of the access tokens (an absolute URI); the control service expects it as IDENTITY_AUDIENCE. */
  @IsString()
  @Length(1, 200)
  DEV_IDENTITY_AUDIENCE = 'urn:bursar:control';

  /** Lifetime of the console's access tokens; it refreshes them shortly before they expire. */
  @IntSetting(5, 86_400)
  DEV_IDENTITY_ACCESS_TOKEN_TTL_SECONDS = 900;

  /** Comma-separated redirect URIs of the console's sign-in (the console's own address, as browsers reach it). */
  @Matches(/^https?:\/\/[^,\s]+(,https?:\/\/[^,\s]+)*$/, { message: 'DEV_IDENTITY_CONSOLE_REDIRECT_URIS must be comma-separated http(s) URLs' })
  DEV_IDENTITY_CONSOLE_REDIRECT_URIS = 'http://localhost:3003/,http://127.0.0.1:3003/,http://localhost:8080/console/';
}
