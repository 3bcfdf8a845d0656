import { IsString, Length } from 'class-validator';
import { IsHttpUrl } from '@bursar/service-kit';

/**
 * `control:admin create-test-agent` works through the running stack's API, as an SDK user would:
 * it needs the development identity provider, its shared secret and the one origin SDKs are given.
 */
export class TestAgentSettings {
  @IsHttpUrl()
  IDENTITY_ISSUER: string;

  @IsString()
  @Length(16, 200)
  DEV_IDENTITY_SECRET: string;

  /** The base URL for SDKs (`pnpm start`'s one origin). */
  @IsHttpUrl()
  GATEWAY_URL: string;
}
