import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { generateEs256KeyPair, type JWK, SecretBox } from '@bursar/crypto';
import { ControlSettings } from '../config/control.settings';
import { CosignKeysRepository } from './cosign-keys.repository';

const ALG = 'ES256';
/** How long a replica signs with the key it loaded before looking for a rotation. */
const REFRESH_MS = 30_000;
/** An unknown kid reloads the set at most this often, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 1_000;

interface LoadedKeys {
  signing: { kid: string; key: KeyObject } | null;
  verifying: Map<string, KeyObject>;
  published: JWK[];
  loadedAt: number;
}

export interface CreatedCosignKey {
  kid: string;
  created_at: Date;
}

/** The AAD binds a sealed private key to its kid, so sealed values cannot be swapped between rows. */
const aad = (kid: string) => `cosign_key:${kid}`;

function publicJwk(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, use: 'sig', alg: ALG, kid: jwk.kid };
}

/**
 * Cosigning keys: created on first boot when cosigning is configured, rotated by the admin CLI,
 * held in memory as node:crypto keys (signing must not re-import a JWK per request), reloaded periodically.
 */
@Injectable()
export class CosignKeysService implements OnModuleInit {
  private loaded: LoadedKeys | null = null;
  private loading: Promise<LoadedKeys> | null = null;
  private readonly box: SecretBox;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: CosignKeysRepository,
    @Inject(ControlSettings) private readonly settings: Pick<ControlSettings, 'CONTROL_SECRET_KEY' | 'COSIGN_ISSUER'>,
  ) {
    this.box = SecretBox.fromBase64(settings.CONTROL_SECRET_KEY);
  }

  get enabled(): boolean {
    return this.settings.COSIGN_ISSUER !== undefined;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    await retryingTransaction(this.dataSource, async (em) => {
      await this.keys.lock(em);
      if (!(await this.keys.hasActive(em))) await this.create(em);
    });
    await this.reload();
  }

  /** A new active key; the previous one retires but stays published and verifying. */
  async rotate(): Promise<CreatedCosignKey> {
    const created = await retryingTransaction(this.dataSource, async (em) => {
      await this.keys.lock(em);
      await this.keys.retireActive(em);
      return this.create(em);
    });
    await this.reload();
    return created;
  }

  async signingKey(): Promise<{ kid: string; key: KeyObject } | null> {
    return (await this.current()).signing;
  }

  async verifyingKey(kid: string): Promise<KeyObject | undefined> {
    let keys = await this.current();
    if (!keys.verifying.has(kid) && Date.now() - keys.loadedAt > UNKNOWN_KID_RELOAD_MS) keys = await this.reload();
    return keys.verifying.get(kid);
  }

  async publishedKids(): Promise<string[]> {
    return [...(await this.reload()).verifying.keys()];
  }

  /** The public key set: every key that may still verify; empty when cosigning is off. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: this.enabled ? (await this.current()).published : [] };
  }

  private async create(em: EntityManager): Promise<CreatedCosignKey> {
    const pair = await generateEs256KeyPair();
    const row = await this.keys.insert(em, {
      kid: pair.kid,
      public_jwk: publicJwk(pair.publicJwk),
      private_jwk_sealed: this.box.encrypt(JSON.stringify(pair.privateJwk), aad(pair.kid)),
    });
    return { kid: row.kid, created_at: row.created_at };
  }

  /**
   * The loaded keys, refreshed in the background once stale. Signing runs inside authorization
   * transactions, so it must never wait for a second pooled connection: under a burst that wait
   * could starve the pool.
   */
  private current(): Promise<LoadedKeys> {
    const loaded = this.loaded;
    if (!loaded) return this.reload();
    if (Date.now() - loaded.loadedAt >= REFRESH_MS) {
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
    const verifying = new Map<string, KeyObject>();
    let signing: LoadedKeys['signing'] = null;
    for (const row of rows) {
      verifying.set(row.kid, createPublicKey({ key: row.public_jwk as JsonWebKey, format: 'jwk' }));
      if (row.status === 'active' && !signing) {
        const privateJwk = JSON.parse(this.box.decrypt(row.private_jwk_sealed, aad(row.kid))) as JsonWebKey;
        signing = { kid: row.kid, key: createPrivateKey({ key: privateJwk, format: 'jwk' }) };
      }
    }
    this.loaded = { signing, verifying, published: rows.map((r) => r.public_jwk), loadedAt: Date.now() };
    return this.loaded;
  }
}
