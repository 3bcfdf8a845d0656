import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { generateEs256KeyPair, type JWK, RootKeys, SecretBox } from '@bursar/crypto';
import { ControlSettings } from '../config/control.settings';
import { CosignKeysRepository } from './cosign-keys.repository';

const ALG = 'ES256';
/** An unknown kid reloads the set at most this often, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 1_000;

interface SigningKey {
  kid: string;
  key: KeyObject;
}

interface LoadedKeys {
  /** The keys that sign now or will, latest activation first, down to the first one already active at load. */
  signers: (SigningKey & { activatesAt: number })[];
  verifying: Map<string, KeyObject>;
  published: JWK[];
  loadedAt: number;
}

export interface CreatedCosignKey {
  kid: string;
  created_at: Date;
  /** When it starts signing; the key before it signs until then. */
  activates_at: Date;
}

export type CosignKeysSettings = Pick<ControlSettings, 'CONTROL_SECRET_KEY' | 'CONTROL_PREVIOUS_SECRET_KEYS' | 'COSIGN_KEY_RELOAD_MS' | 'COSIGN_KEY_ACTIVATION_DELAY_MS'> &
  Partial<Pick<ControlSettings, 'COSIGN_ISSUER'>>;

/** The AAD binds a sealed private key to its kid, so sealed values cannot be swapped between rows. */
export const cosignKeyAad = (kid: string) => `cosign_key:${kid}`;

function publicJwk(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, use: 'sig', alg: ALG, kid: jwk.kid };
}

/**
 * Cosigning keys: created on first boot when cosigning is configured, rotated by the admin CLI,
 * held in memory as node:crypto keys (signing must not re-import a JWK per request), reloaded every
 * COSIGN_KEY_RELOAD_MS. A rotated key is published (JWKS, verification) as soon as a replica reloads,
 * but signs only from its activation, COSIGN_KEY_ACTIVATION_DELAY_MS after the rotation: by then every
 * replica lists it and every JWKS copy an executor may cache (COSIGN_JWKS_MAX_AGE_SECONDS) does too,
 * so no verifier meets a cosignature whose key it cannot know. Replicas switch at the activation
 * time itself, not at their next reload.
 */
@Injectable()
export class CosignKeysService implements OnModuleInit {
  private loaded: LoadedKeys | null = null;
  private loading: Promise<LoadedKeys> | null = null;
  private readonly box: SecretBox;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: CosignKeysRepository,
    @Inject(ControlSettings) private readonly settings: CosignKeysSettings,
  ) {
    this.box = RootKeys.fromSettings(settings.CONTROL_SECRET_KEY, settings.CONTROL_PREVIOUS_SECRET_KEYS).sealedRows();
  }

  get enabled(): boolean {
    return this.settings.COSIGN_ISSUER !== undefined;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    await retryingTransaction(this.dataSource, async (em) => {
      await this.keys.lock(em);
      // The first key signs at once: nothing was ever signed, so no verifier can be behind.
      if (!(await this.keys.hasActive(em))) await this.create(em, 0);
    });
    await this.reload();
  }

  /**
   * A new key, published at once and signing after the activation delay; the previous one signs
   * until then, and stays published and verifying afterwards.
   */
  async rotate(): Promise<CreatedCosignKey> {
    const delay = this.settings.COSIGN_KEY_ACTIVATION_DELAY_MS;
    const created = await retryingTransaction(this.dataSource, async (em) => {
      await this.keys.lock(em);
      await this.keys.retireActive(em, delay);
      return this.create(em, delay);
    });
    await this.reload();
    return created;
  }

  /** The key to sign with now: the latest one whose activation has passed. */
  async signingKey(): Promise<SigningKey | null> {
    const now = Date.now();
    const signer = (await this.current()).signers.find((k) => k.activatesAt <= now);
    return signer ? { kid: signer.kid, key: signer.key } : null;
  }

  async verifyingKey(kid: string): Promise<KeyObject | undefined> {
    let keys = await this.current();
    if (!keys.verifying.has(kid) && Date.now() - keys.loadedAt > UNKNOWN_KID_RELOAD_MS) keys = await this.reload();
    return keys.verifying.get(kid);
  }

  async publishedKids(): Promise<string[]> {
    return [...(await this.reload()).verifying.keys()];
  }

  /**
   * The public key set: every key that may still verify, or will sign; empty when cosigning is off.
   * A stale set is read again before answering (no transaction waits on this request), so any
   * answer given COSIGN_KEY_RELOAD_MS after a rotation lists the rotated key.
   */
  async jwks(): Promise<{ keys: JWK[] }> {
    if (!this.enabled) return { keys: [] };
    const held = this.loaded;
    // With the database away, the set already loaded is still the best answer.
    const loaded = held && !this.stale(held) ? held : await this.reload().catch((err: unknown) => held ?? Promise.reject(err));
    return { keys: loaded.published };
  }

  private async create(em: EntityManager, activationDelayMs: number): Promise<CreatedCosignKey> {
    const pair = await generateEs256KeyPair();
    const row = await this.keys.insert(
      em,
      {
        kid: pair.kid,
        public_jwk: publicJwk(pair.publicJwk),
        private_jwk_sealed: this.box.encrypt(JSON.stringify(pair.privateJwk), cosignKeyAad(pair.kid)),
      },
      activationDelayMs,
    );
    return { kid: row.kid, created_at: row.created_at, activates_at: row.activates_at };
  }

  private stale(loaded: LoadedKeys): boolean {
    return Date.now() - loaded.loadedAt >= this.settings.COSIGN_KEY_RELOAD_MS;
  }

  /**
   * The loaded keys, refreshed in the background once stale. Signing runs inside authorization
   * transactions, so it must never wait for a second pooled connection: under a burst that wait
   * could starve the pool.
   */
  private current(): Promise<LoadedKeys> {
    const loaded = this.loaded;
    if (!loaded) return this.reload();
    if (this.stale(loaded)) {
      // A failed refresh keeps the keys already loaded; the next stale read tries again.
      this.reload().catch(() => undefined);
    }
    return Promise.resolve(loaded);
  }

  private reload(): Promise<LoadedKeys> {
    this.loading ??= this.read().finally(() => (this.loading = null));
    return this.loading;
  }

  private async read(): Promise<LoadedKeys> {
    const rows = await this.keys.all();
    const loadedAt = Date.now();
    const verifying = new Map<string, KeyObject>();
    const signers: LoadedKeys['signers'] = [];
    for (const row of rows) {
      verifying.set(row.kid, createPublicKey({ key: row.public_jwk as JsonWebKey, format: 'jwk' }));
      // Rows come latest activation first: the pending keys, then the one signing now; older ones only verify.
      if (signers.length === 0 || signers[signers.length - 1].activatesAt > loadedAt) {
        const privateJwk = JSON.parse(this.box.decrypt(row.private_jwk_sealed, cosignKeyAad(row.kid))) as JsonWebKey;
        signers.push({ kid: row.kid, key: createPrivateKey({ key: privateJwk, format: 'jwk' }), activatesAt: row.activates_at.getTime() });
      }
    }
    this.loaded = { signers, verifying, published: rows.map((r) => r.public_jwk), loadedAt };
    return this.loaded;
  }
}
