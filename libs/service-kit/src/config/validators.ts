import { registerDecorator, ValidationOptions } from 'class-validator';

function define(name: string, test: (value: unknown) => boolean, message: (prop: string) => string) {
  return (options?: ValidationOptions) => (target: object, propertyName: string) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName,
      options: { message: message(propertyName), ...options },
      validator: { validate: test },
    });
}

function parses(value: unknown, protocols: string[]): boolean {
  if (typeof value !== 'string') return false;
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export const IsPostgresUrl = define(
  'isPostgresUrl',
  (v) => parses(v, ['postgres:', 'postgresql:']),
  (p) => `${p} must be a postgres:// URL`,
);
export const IsRedisUrl = define('isRedisUrl', (v) => parses(v, ['redis:', 'rediss:']), (p) => `${p} must be a redis:// URL`);
export const IsHttpUrl = define('isHttpUrl', (v) => parses(v, ['http:', 'https:']), (p) => `${p} must be an http(s) URL`);
/** A base64 string decoding to exactly 32 bytes: an AES-256 key. */
const isAes256Key = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32;

export const IsAes256Key = define('isAes256Key', isAes256Key, (p) => `${p} must be base64 of 32 random bytes (openssl rand -base64 32)`);

/** A comma list of such keys (the previous keys still accepted during a rotation); empty is allowed. */
export const IsAes256KeyList = define(
  'isAes256KeyList',
  (v) => typeof v === 'string' && v.split(',').map((k) => k.trim()).filter(Boolean).every(isAes256Key),
  (p) => `${p} must be a comma list of base64 32-byte keys`,
);
