import { IsInt, registerDecorator, ValidationArguments } from 'class-validator';
import { IntSetting, ToInt } from '@bursar/service-kit';
import type { Constructor } from './control-storage.settings';

/** The timing fields of cosigning keys, as validated. */
export interface CosignTiming {
  COSIGN_KEY_RELOAD_MS: number;
  COSIGN_JWKS_MAX_AGE_SECONDS: number;
  COSIGN_KEY_ACTIVATION_DELAY_MS: number;
}

/** How long after a rotation every published copy of the key set certainly lists the new key. */
export function publicationBoundMs(t: Pick<CosignTiming, 'COSIGN_KEY_RELOAD_MS' | 'COSIGN_JWKS_MAX_AGE_SECONDS'>): number {
  return t.COSIGN_KEY_RELOAD_MS + t.COSIGN_JWKS_MAX_AGE_SECONDS * 1000;
}

/** Refuses an activation delay a JWKS copy could outlive: a key would sign before every verifier could know it. */
function OutlastsPublication() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'outlastsPublication',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be longer than COSIGN_KEY_RELOAD_MS + COSIGN_JWKS_MAX_AGE_SECONDS (in ms)` },
      validator: {
        validate: (value: unknown, args: ValidationArguments) => typeof value === 'number' && value > publicationBoundMs(args.object as CosignTiming),
      },
    });
}

/**
 * Adds the cosigning key timing settings to a settings class: the service signs and publishes with
 * them, the operator CLI stamps a rotated key's activation with them, so both validate the same rules.
 */
export function withCosignTiming<B extends Constructor>(Base: B) {
  class WithCosignTiming extends Base implements CosignTiming {
    /** How long a replica uses the key set it loaded before reading it again (a rotation reaches it within this). */
    @IntSetting(1000)
    COSIGN_KEY_RELOAD_MS = 30_000;

    /** `Cache-Control: max-age` of `/.well-known/jwks.json`: how long an executor may keep a copy. */
    @IntSetting(0, 3600)
    COSIGN_JWKS_MAX_AGE_SECONDS = 60;

    /**
     * How long after a rotation the new key starts signing (the previous key signs until then): longer
     * than the reload interval plus the JWKS cache lifetime, so every replica publishes the key, and
     * every copy of the set an executor may still hold lists it, before the first cosignature uses it.
     */
    @ToInt()
    @IsInt()
    @OutlastsPublication()
    COSIGN_KEY_ACTIVATION_DELAY_MS = 120_000;
  }
  return WithCosignTiming;
}
