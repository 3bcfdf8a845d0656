import { ConfigError, loadConfig } from '@bursar/service-kit';
import { ControlSettings } from './control.settings';

const base = { CONTROL_DATABASE_URL: 'postgres://localhost/control', CONTROL_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };
const issuer = { IDENTITY_ISSUER: 'https://id.example.com' };

describe('identity audience setting', () => {
  const load = (env: Record<string, string>) => () => loadConfig(ControlSettings, { ...base, ...env });

  it('refuses to start in production with an identity issuer but no audience', () => {
    expect(load({ NODE_ENV: 'production', ...issuer })).toThrow(ConfigError);
    expect(load({ NODE_ENV: 'production', ...issuer, IDENTITY_AUDIENCE: '' })).toThrow(/IDENTITY_AUDIENCE is required in production/);
  });

  it('starts in production with an audience, or with no identity issuer at all', () => {
    expect(load({ NODE_ENV: 'production', ...issuer, IDENTITY_AUDIENCE: 'urn:bursar:control' })().IDENTITY_AUDIENCE).toBe('urn:bursar:control');
    expect(load({ NODE_ENV: 'production' })().IDENTITY_AUDIENCE).toBeUndefined();
  });

  it('still lets development and tests run without an audience', () => {
    expect(load({ NODE_ENV: 'development', ...issuer })().IDENTITY_AUDIENCE).toBeUndefined();
    expect(load({ NODE_ENV: 'test', ...issuer })().IDENTITY_AUDIENCE).toBeUndefined();
  });
});
