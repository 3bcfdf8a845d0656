import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';
import { RootKeys } from '@bursar/crypto';
import { IntSetting, IsAes256Key, IsAes256KeyList, IsHttpUrl, IsPort, IsPostgresUrl, ToBool, ToInt } from '@bursar/service-kit';
import { WebhookServiceSettings } from '@bursar/queue';

const TTL_RULE = 'LEDGER_ACCESS_TOKEN_TTL_SECONDS must be an integer from 60 to 86400';

/** Environment of the ledger service, validated once at boot (webhook settings come from the base). */
export class LedgerSettings extends WebhookServiceSettings {
  @IsPort()
  LEDGER_PORT = 3001;

  @IsPostgresUrl()
  LEDGER_DATABASE_URL: string;

  /**
   * Root key of the ledger (base64 of 32 bytes). Every use gets its own HKDF subkey: sealed rows
   * (webhook signing secrets, inbound secrets, idempotent replies), access tokens, list cursors,
   * export links. See docs/security.md for rotation.
   */
  @IsAes256Key()
  LEDGER_SECRET_KEY: string;

  /**
   * Root keys replaced by LEDGER_SECRET_KEY (comma list), kept while `rotate-secret-key` re-seals
   * rows and tokens signed under them expire: their sealed values still open, their tokens and
   * cursors still verify.
   */
  @IsOptional()
  @IsAes256KeyList()
  LEDGER_PREVIOUS_SECRET_KEYS?: string;

  /** Where error `docs_url` links point; `#<code>` is appended. */
  @IsOptional()
  @IsHttpUrl()
  LEDGER_DOCS_URL = 'https://docs.bursar.dev/ledger/errors';

  /**
   * The origin clients reach the ledger at (the gateway's, in a deployment): the OAuth issuer and
   * the base of the token endpoint URL. Defaults to http://localhost:<LEDGER_PORT>.
   */
  @IsOptional()
  @IsHttpUrl()
  LEDGER_PUBLIC_URL?: string;

  /** Lifetime of access tokens in seconds. */
  @ToInt()
  @IsInt({ message: TTL_RULE })
  @Min(60, { message: TTL_RULE })
  @Max(86_400, { message: TTL_RULE })
  LEDGER_ACCESS_TOKEN_TTL_SECONDS = 3600;

  /**
   * How long a completed idempotency key keeps its result for replay, in hours; 0 (the default)
   * keeps keys forever, as the reference does.
   */
  @IntSetting(0)
  LEDGER_IDEMPOTENCY_RETENTION_HOURS = 0;

  /** Per-client read budget (GET/HEAD) per second. */
  @IntSetting(1)
  LEDGER_RATE_LIMIT_READS_PER_SECOND = 100;

  /** Per-client write budget per second. */
  @IntSetting(1)
  LEDGER_RATE_LIMIT_WRITES_PER_SECOND = 20;

  /** Reconciliation runs over at most this many open rows run inside the request and answer `completed`; larger ones are queued. */
  @IntSetting(0)
  LEDGER_RECONCILIATION_SYNC_ROW_LIMIT = 500;

  /** A running reconciliation run whose heartbeat is older than this is presumed dead and run again. */
  @IntSetting(200)
  LEDGER_RECONCILIATION_STALE_AFTER_MS = 60_000;

  /** How often queued runs, and running ones whose process died, are handed to the run queue. */
  @IntSetting(50)
  LEDGER_RECONCILIATION_SWEEP_INTERVAL_MS = 15_000;

  /** Folder of export files when no S3 bucket is configured (EXPORT_S3_BUCKET unset). */
  @IsString()
  @IsNotEmpty()
  LEDGER_EXPORT_DIR = '.data/exports';

  /** How long an export's download links stay valid after it is ready (at most 7 days, the S3 presigning limit). */
  @IntSetting(1, 604_800)
  LEDGER_EXPORT_URL_TTL_SECONDS = 604_800;

  /** How often an idle process looks for pending exports (and running ones whose process died). */
  @IntSetting(10)
  LEDGER_EXPORT_POLL_INTERVAL_MS = 1_000;

  /** A running export whose heartbeat is older than this is presumed dead and run again. */
  @IntSetting(200)
  LEDGER_EXPORT_STALE_AFTER_MS = 60_000;

  /**
   * How often committed changes are sealed into the books log (docs/verifiable-records.md); a round
   * that fills a whole batch goes again at once.
   */
  @IntSetting(10)
  LEDGER_LOG_SEAL_INTERVAL_MS = 200;

  /** Changes sealed per database transaction. */
  @IntSetting(1, 10_000)
  LEDGER_LOG_SEAL_BATCH = 1_000;

  /** A checkpoint is signed once a ledger's log has grown this many entries past its newest one... */
  @IntSetting(1)
  LEDGER_LOG_CHECKPOINT_EVERY = 1_000;

  /** ...or this many seconds after it, when the log has grown at all. */
  @IntSetting(1)
  LEDGER_LOG_CHECKPOINT_SECONDS = 60;

  /** How often each process reloads the checkpoint signing keys (a rotation is published by then). */
  @IntSetting(100)
  LEDGER_LOG_KEY_RELOAD_MS = 30_000;

  /**
   * A rotated checkpoint key signs only this long after its creation, so every replica and every
   * cached copy of the log JWKS lists it first.
   */
  @IntSetting(0)
  LEDGER_LOG_KEY_ACTIVATION_DELAY_MS = 120_000;

  /** S3-compatible bucket for export files; when set, exports go there and downloads are presigned S3 URLs. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  EXPORT_S3_BUCKET?: string;

  /** Endpoint of an S3-compatible service (MinIO and the like); unset means AWS S3 itself. */
  @IsOptional()
  @IsHttpUrl()
  EXPORT_S3_ENDPOINT?: string;

  /**
   * The endpoint as clients reach it, when it differs from the one the ledger uploads to (compose:
   * the ledger talks to http://minio:9000, a person's browser to http://localhost:9000). Download
   * URLs are presigned for this host.
   */
  @IsOptional()
  @IsHttpUrl()
  EXPORT_S3_PUBLIC_ENDPOINT?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  EXPORT_S3_REGION = 'us-east-1';

  /** With the secret below; when both are unset the SDK's own credential chain applies. */
  @IsOptional()
  @IsString()
  EXPORT_S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  EXPORT_S3_SECRET_ACCESS_KEY?: string;

  /** Path-style bucket addressing (http://host/bucket/key), which MinIO and most non-AWS services need. */
  @ToBool()
  @IsBoolean()
  EXPORT_S3_FORCE_PATH_STYLE = false;

  get rootKeys(): RootKeys {
    return RootKeys.fromSettings(this.LEDGER_SECRET_KEY, this.LEDGER_PREVIOUS_SECRET_KEYS);
  }

  get publicUrl(): string {
    return (this.LEDGER_PUBLIC_URL ?? `http://localhost:${this.LEDGER_PORT}`).replace(/\/+$/, '');
  }
}
