import { ConfigError, loadConfig } from '@bursar/service-kit';
import { ControlAdminSettings } from './control-admin.settings';

const base = { CONTROL_DATABASE_URL: 'postgres://localhost/control', CONTROL_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };

describe('cosigning key timing settings', () => {
  it('defaults to a 30 s reload, a 60 s JWKS lifetime and activation 120 s after a rotation', () => {
    expect(loadConfig(ControlAdminSettings, base)).toMatchObject({
      COSIGN_KEY_RELOAD_MS: 30_000,
      COSIGN_JWKS_MAX_AGE_SECONDS: 60,
      COSIGN_KEY_ACTIVATION_DELAY_MS: 120_000,
    });
  });

  it('refuses at boot an activation delay a JWKS copy could outlive', () => {
    const load = (env: Record<string, string>) => () => loadConfig(ControlAdminSettings, { ...base, ...env });
    expect(load({ COSIGN_KEY_ACTIVATION_DELAY_MS: '90000' })).toThrow(ConfigError);
    expect(load({ COSIGN_KEY_ACTIVATION_DELAY_MS: '90000' })).toThrow(/COSIGN_KEY_ACTIVATION_DELAY_MS must be longer than COSIGN_KEY_RELOAD_MS \+ COSIGN_JWKS_MAX_AGE_SECONDS/);
    expect(load({ COSIGN_JWKS_MAX_AGE_SECONDS: '300' })).toThrow(ConfigError);
    expect(load({ COSIGN_KEY_RELOAD_MS: '100000' })).toThrow(ConfigError);
    expect(load({ COSIGN_KEY_RELOAD_MS: '5000', COSIGN_JWKS_MAX_AGE_SECONDS: '5', COSIGN_KEY_ACTIVATION_DELAY_MS: '10001' })().COSIGN_KEY_ACTIVATION_DELAY_MS).toBe(10_001);
  });
});
