import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { generateEs256KeyPair, type JWK, type SecretBox } from '@bursar/crypto';
import { retryingTransaction } from '../database/retrying-transaction';

const ALG = 'ES256';
/** An unknown kid reloads the set at most this often, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 1_000;

export interface SigningKey {
  kid: string;
  key: KeyObject;
}

export interface CreatedSigningKey {
  kid: string;
  created_at: Date;
  /** When it starts signing; the key before it signs until then. */
  activates_at: Date;
}

export interface SigningKeyRingOptions {
  /** A table of the shape `cosign_keys` has (kid, public_jwk, private_jwk_sealed, status, activates_at, created_at, retired_at). */
  table: 'cosign_keys' | 'log_signing_keys';
  /** Binds a sealed private key to its kid, so sealed values cannot be swapped between rows. */
  aad: (kid: string) => string;
  box: SecretBox;
  reloadMs: number;
  activationDelayMs: number;
}

interface KeyRow {
  kid: string;
  public_jwk: JWK;
  private_jwk_sealed: string;
  activates_at: Date;
}

interface LoadedKeys {
  /** The keys that sign now or will, latest activation first, down to the first one already active at load. */
  signers: (SigningKey & { activatesAt: number })[];
  verifying: Map<string, KeyObject>;
  published: JWK[];
  loadedAt: number;
}

function publicJwk(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, use: 'sig', alg: ALG, kid: jwk.kid };
}

/**
 * The public keys of a key table by kid: all a verifier needs (no secret to open private halves).
 */
export async function publishedKeys(em: EntityManager, table: SigningKeyRingOptions['table']): Promise<Map<string, KeyObject>> {
  const rows: Pick<KeyRow, 'kid' | 'public_jwk'>[] = await em.query(`SELECT kid, public_jwk FROM ${table}`);
  return new Map(rows.map((r) => [r.kid, createPublicKey({ key: r.public_jwk as JsonWebKey, format: 'jwk' })]));
}

/**
 * ES256 signing keys of a deployment (control's cosigning keys, the ledger's checkpoint keys):
 * created on first use, rotated by an operator, held in memory as node:crypto keys, reloaded every
 * `reloadMs`. A rotated key is published (JWKS, verification) as soon as a replica reloads, but
 * signs only from its activation, `activationDelayMs` after the rotation: by then every replica lists
 * it and every cached JWKS copy does too, so no verifier meets a signature whose key it cannot
 * know. Replicas switch at the activation time itself, not at their next reload. Retired keys stay
 * published, so what they signed keeps verifying.
 */
export class SigningKeyRing {
  private loaded: LoadedKeys | null = null;
  private loading: Promise<LoadedKeys> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: SigningKeyRingOptions,
  ) {}

  /** A first key, signing at once (nothing was ever signed, so no verifier can be behind), unless one exists. */
  async ensure(): Promise<void> {
    await retryingTransaction(this.dataSource, async (em) => {
      await this.lock(em);
      const [row] = await em.query(`SELECT count(*)::int AS n FROM ${this.options.table} WHERE status = 'active'`);
      if (row.n === 0) await this.create(em, 0);
    });
    await this.reload();
  }

  /** A new key, published at once and signing after the activation delay; the previous one signs until then. */
  async rotate(): Promise<CreatedSigningKey> {
    const delay = this.options.activationDelayMs;
    const created = await retryingTransaction(this.dataSource, async (em) => {
      await this.lock(em);
      await em.query(
        `UPDATE ${this.options.table} SET status = 'retired', retired_at = clock_timestamp() + $1 * interval '1 millisecond' WHERE status = 'active'`,
        [delay],
      );
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
   * Every key that may still verify, or will sign. A stale set is read again before answering, so
   * any answer given `reloadMs` after a rotation lists the rotated key; with the database away, the
   * set already loaded is still the best answer.
   */
  async jwks(): Promise<{ keys: JWK[] }> {
    const held = this.loaded;
    const loaded = held && !this.stale(held) ? held : await this.reload().catch((err: unknown) => held ?? Promise.reject(err));
    return { keys: loaded.published };
  }

  /** Serialises key creation across replicas and the admin CLI. */
  private async lock(em: EntityManager): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`bursar.${this.options.table}`]);
  }

  private async create(em: EntityManager, activationDelayMs: number): Promise<CreatedSigningKey> {
    const pair = await generateEs256KeyPair();
    const [row] = await em.query(
      `INSERT INTO ${this.options.table} (kid, public_jwk, private_jwk_sealed, status, created_at, activates_at)
       VALUES ($1, $2, $3, 'active', clock_timestamp(), clock_timestamp() + $4 * interval '1 millisecond') RETURNING kid, created_at, activates_at`,
      [pair.kid, JSON.stringify(publicJwk(pair.publicJwk)), this.options.box.encrypt(JSON.stringify(pair.privateJwk), this.options.aad(pair.kid)), activationDelayMs],
    );
    return row;
  }

  private stale(loaded: LoadedKeys): boolean {
    return Date.now() - loaded.loadedAt >= this.options.reloadMs;
  }

  /**
   * The loaded keys, refreshed in the background once stale. Signing may run inside other
   * transactions, so it must never wait for a second pooled connection: under a burst that wait
   * could starve the pool.
   */
  private current(): Promise<LoadedKeys> {
    const loaded = this.loaded;
    if (!loaded) return this.reload();
    // A failed refresh keeps the keys already loaded; the next stale read tries again.
    if (this.stale(loaded)) this.reload().catch(() => undefined);
    return Promise.resolve(loaded);
  }

  private reload(): Promise<LoadedKeys> {
    this.loading ??= this.read().finally(() => (this.loading = null));
    return this.loading;
  }

  private async read(): Promise<LoadedKeys> {
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT kid, public_jwk, private_jwk_sealed, activates_at FROM ${this.options.table} ORDER BY activates_at DESC, created_at DESC`,
    );
    const loadedAt = Date.now();
    const verifying = new Map<string, KeyObject>();
    const signers: LoadedKeys['signers'] = [];
    for (const row of rows) {
      verifying.set(row.kid, createPublicKey({ key: row.public_jwk as JsonWebKey, format: 'jwk' }));
      // Rows come latest activation first: the pending keys, then the one signing now; older ones only verify.
      if (signers.length === 0 || signers[signers.length - 1].activatesAt > loadedAt) {
        const privateJwk = JSON.parse(this.options.box.decrypt(row.private_jwk_sealed, this.options.aad(row.kid))) as JsonWebKey;
        signers.push({ kid: row.kid, key: createPrivateKey({ key: privateJwk, format: 'jwk' }), activatesAt: row.activates_at.getTime() });
      }
    }
    this.loaded = { signers, verifying, published: rows.map((r) => r.public_jwk), loadedAt };
    return this.loaded;
  }
}
