import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { type CreatedSigningKey, type SigningKey, SigningKeyRing } from '@bursar/service-kit';
import type { KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { JWK } from '@bursar/crypto';
import { ControlSettings } from '../config/control.settings';

export type CreatedCosignKey = CreatedSigningKey;

export type CosignKeysSettings = Pick<ControlSettings, 'rootKeys' | 'COSIGN_KEY_RELOAD_MS' | 'COSIGN_KEY_ACTIVATION_DELAY_MS'> &
  Partial<Pick<ControlSettings, 'COSIGN_ISSUER'>>;

/** The AAD binds a sealed private key to its kid, so sealed values cannot be swapped between rows. */
export const cosignKeyAad = (kid: string) => `cosign_key:${kid}`;

/**
 * Cosigning keys (a SigningKeyRing over `cosign_keys`): created on first boot when cosigning is
 * configured, rotated by the admin CLI. The activation delay covers every JWKS copy an executor may
 * cache (COSIGN_JWKS_MAX_AGE_SECONDS).
 */
@Injectable()
export class CosignKeysService implements OnModuleInit {
  private readonly ring: SigningKeyRing;

  constructor(
    dataSource: DataSource,
    @Inject(ControlSettings) private readonly settings: CosignKeysSettings,
  ) {
    this.ring = new SigningKeyRing(dataSource, {
      table: 'cosign_keys',
      aad: cosignKeyAad,
      box: settings.rootKeys.sealedRows(),
      reloadMs: settings.COSIGN_KEY_RELOAD_MS,
      activationDelayMs: settings.COSIGN_KEY_ACTIVATION_DELAY_MS,
    });
  }

  get enabled(): boolean {
    return this.settings.COSIGN_ISSUER !== undefined;
  }

  async onModuleInit(): Promise<void> {
    if (this.enabled) await this.ring.ensure();
  }

  rotate(): Promise<CreatedCosignKey> {
    return this.ring.rotate();
  }

  signingKey(): Promise<SigningKey | null> {
    return this.ring.signingKey();
  }

  verifyingKey(kid: string): Promise<KeyObject | undefined> {
    return this.ring.verifyingKey(kid);
  }

  publishedKids(): Promise<string[]> {
    return this.ring.publishedKids();
  }

  /** Empty when cosigning is off. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return this.enabled ? this.ring.jwks() : { keys: [] };
  }
}
