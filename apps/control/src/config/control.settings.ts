import { IsOptional, IsString, Matches, ValidateIf } from 'class-validator';
import { IntSetting, IsHttpUrl, IsPort } from '@bursar/service-kit';
import { WebhookServiceSettings } from '@bursar/queue';
import { withCosignTiming } from './cosign-timing.settings';
import { withControlStorage } from './control-storage.settings';

/** Environment of the control service, validated once at boot. */
export class ControlSettings extends withControlStorage(withCosignTiming(WebhookServiceSettings)) {
  @IsPort()
  CONTROL_PORT = 3000;

  /** Issuer of cosignatures; cosigning is off when unset. */
  @IsOptional()
  @IsHttpUrl()
  COSIGN_ISSUER?: string;

  /** Issuer whose JWT access tokens identify people; workspace routes answer 503 while unset. */
  @IsOptional()
  @IsHttpUrl()
  IDENTITY_ISSUER?: string;

  /**
   * Required `aud` of identity tokens; any audience is accepted when unset, which production refuses
   * while IDENTITY_ISSUER is set (a token the issuer minted for another application would sign in).
   */
  @ValidateIf((s: ControlSettings) => s.IDENTITY_AUDIENCE !== undefined || (s.NODE_ENV === 'production' && s.IDENTITY_ISSUER !== undefined))
  @IsString({ message: 'IDENTITY_AUDIENCE is required in production when IDENTITY_ISSUER is set' })
  IDENTITY_AUDIENCE?: string;

  /** Where the issuer publishes its keys; read from the issuer's discovery document when unset. */
  @IsOptional()
  @IsHttpUrl()
  IDENTITY_JWKS_URL?: string;

  /**
   * Base URL of the identity provider's password sign-in API (WorkOS user-management shaped:
   * POST <url>/user_management/authenticate). The /v1/auth routes answer 503 while unset.
   */
  @IsOptional()
  @IsHttpUrl()
  IDENTITY_SIGNIN_URL?: string;

  /** Client id the sign-in API knows this service by. */
  @IsOptional()
  @IsString()
  IDENTITY_SIGNIN_CLIENT_ID?: string;

  /** Secret (API key) for the sign-in API. */
  @IsOptional()
  @IsString()
  IDENTITY_SIGNIN_API_KEY?: string;

  /** How often unused spend tokens past their expiry are marked expired (audit + webhook). */
  @IntSetting(100)
  SPEND_TOKEN_SWEEP_INTERVAL_MS = 30_000;

  /** Requests per minute one agent key may make on /control/v1/agent/*. */
  @IntSetting(1)
  AGENT_RATE_LIMIT_PER_MINUTE = 1200;

  /** Base URL of the billing provider's API (Stripe-shaped: /v1/checkout/sessions, /v1/subscriptions, ...). */
  @IsHttpUrl()
  BILLING_API_URL = 'https://api.stripe.com';

  /** Secret key for the billing provider; billing is off (`configured: false`) while unset. */
  @IsOptional()
  @IsString()
  BILLING_API_KEY?: string;

  /** Shared secret of inbound billing webhooks; every delivery answers 401 `invalid_signature` while unset. */
  @IsOptional()
  @IsString()
  BILLING_WEBHOOK_SECRET?: string;

  /** Header carrying the inbound webhook's `t=<unix>,v1=<hex>` signature. */
  @Matches(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, { message: 'BILLING_SIGNATURE_HEADER must be a header name' })
  BILLING_SIGNATURE_HEADER = 'Stripe-Signature';

  /** The provider's price id of each paid plan and of one prepaid volume pack unit (`plan=price_id,...`). */
  @Matches(/^[a-z]+=[A-Za-z0-9_-]+(,[a-z]+=[A-Za-z0-9_-]+)*$/, { message: 'BILLING_PRICES must look like build=price_1,pack=price_2' })
  BILLING_PRICES = 'build=price_build,growth=price_growth,scale=price_scale,pack=price_pack';

  /** Where hosted checkout and the customer portal send the person back to. */
  @IsHttpUrl()
  BILLING_RETURN_URL = 'http://localhost:8080/billing';

  /** A billing call not answered by then counts as the provider being unreachable (503). */
  @IntSetting(1)
  BILLING_TIMEOUT_MS = 10_000;

  /**
   * Browser origins (comma-separated, e.g. the console's http://localhost:3003) allowed to call this
   * API cross-origin; no origin is allowed while unset.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^,\s/]+(,https?:\/\/[^,\s/]+)*$/, { message: 'CORS_ALLOWED_ORIGINS must be comma-separated origins like http://localhost:3003' })
  CORS_ALLOWED_ORIGINS?: string;

  /** Requests per minute one person (identity) may make on the workspace and invitation routes. */
  @IntSetting(1)
  WORKSPACE_RATE_LIMIT_PER_MINUTE = 300;

  /** A policy backtest over at most this many decisions answers 201 completed; a larger one is queued (202). */
  @IntSetting(0)
  POLICY_BACKTEST_INLINE_LIMIT = 1000;

  /** Decisions a backtest reads per page of history. */
  @IntSetting(1)
  POLICY_BACKTEST_PAGE_SIZE = 5000;

  /** Pause between a backtest's pages, leaving the database to live decisions (0: none). */
  @IntSetting(0)
  POLICY_BACKTEST_PAGE_DELAY_MS = 0;

  /** A running backtest whose worker has not beaten for this long is taken over by another worker. */
  @IntSetting(1000)
  POLICY_BACKTEST_STALE_MS = 30_000;

  /** How often the audit log sealer appends committed audit events to their workspace's log (0: never, for tests that seal by hand). */
  @IntSetting(0)
  AUDIT_LOG_SEAL_INTERVAL_MS = 200;

  /** How often decisions are folded into the Spending summary's hour and day rollups (0: never, for tests that fold by hand). */
  @IntSetting(0)
  CONTROL_ROLLUP_FOLD_INTERVAL_MS = 60_000;

  /** A workspace's log is signed once it has grown this many entries past its newest checkpoint... */
  @IntSetting(1)
  AUDIT_LOG_CHECKPOINT_EVERY = 1000;

  /** ...or this many seconds after that checkpoint, when it has grown at all. */
  @IntSetting(1)
  AUDIT_LOG_CHECKPOINT_SECONDS = 60;
}
