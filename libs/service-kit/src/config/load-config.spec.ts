import { IsOptional } from 'class-validator';
import { CommonSettings, IsPort } from './common-settings';
import { ConfigError, loadConfig } from './load-config';
import { IsAes256Key, IsHttpUrl, IsPostgresUrl } from './validators';

class ExampleSettings extends CommonSettings {
  @IsPort()
  EXAMPLE_PORT = 3000;

  @IsPostgresUrl()
  EXAMPLE_DATABASE_URL: string;

  @IsAes256Key()
  EXAMPLE_SECRET_KEY: string;

  @IsOptional()
  @IsHttpUrl()
  EXAMPLE_ISSUER?: string;
}

const valid = {
  EXAMPLE_DATABASE_URL: 'postgres://u@localhost:5432/db',
  EXAMPLE_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
};

describe('loadConfig', () => {
  it('applies defaults and converts numbers', () => {
    const s = loadConfig(ExampleSettings, { ...valid, EXAMPLE_PORT: '4100' });
    expect(s.EXAMPLE_PORT).toBe(4100);
    expect(s.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(s.LOG_LEVEL).toBe('info');
    expect(s.SHUTDOWN_TIMEOUT_MS).toBe(10000);
  });

  it('names a missing setting in one line', () => {
    const fail = () => loadConfig(ExampleSettings, { EXAMPLE_SECRET_KEY: valid.EXAMPLE_SECRET_KEY });
    expect(fail).toThrow(ConfigError);
    expect(fail).toThrow('Invalid configuration: EXAMPLE_DATABASE_URL must be a postgres:// URL (missing)');
  });

  it('treats an empty string as unset', () => {
    expect(() => loadConfig(ExampleSettings, { ...valid, EXAMPLE_DATABASE_URL: '' })).toThrow(/EXAMPLE_DATABASE_URL.*missing/);
  });

  it.each([
    ['EXAMPLE_PORT', 'abc', /EXAMPLE_PORT must be a port number \(got "abc"\)/],
    ['EXAMPLE_PORT', '70000', /EXAMPLE_PORT must be a port number/],
    ['EXAMPLE_SECRET_KEY', 'c2hvcnQ=', /EXAMPLE_SECRET_KEY must be base64 of 32 random bytes/],
    ['REDIS_URL', 'http://x', /REDIS_URL must be a redis:\/\/ URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['EXAMPLE_ISSUER', 'not a url', /EXAMPLE_ISSUER must be an http\(s\) URL/],
  ])('refuses %s=%s', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig(ExampleSettings, { ...valid, [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('reports every bad setting at once', () => {
    expect(() => loadConfig(ExampleSettings, { EXAMPLE_PORT: '0' })).toThrow(
      /EXAMPLE_PORT.*; .*EXAMPLE_DATABASE_URL.*; .*EXAMPLE_SECRET_KEY/,
    );
  });
});
