import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsRedisUrl } from './validators';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Integer env values arrive as strings. */
export const ToInt = () => Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));
export const ToBool = () =>
  Transform(({ value }) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value));

export const IsPort = () => (target: object, key: string) => {
  ToInt()(target, key);
  IsInt({ message: `${key} must be a port number` })(target, key);
  Min(1, { message: `${key} must be a port number` })(target, key);
  Max(65535, { message: `${key} must be a port number` })(target, key);
};

/** An integer setting (env values arrive as strings) of at least `min` and, when given, at most `max`. */
export const IntSetting = (min: number, max?: number) => (target: object, key: string) => {
  ToInt()(target, key);
  IsInt()(target, key);
  Min(min)(target, key);
  if (max !== undefined) Max(max)(target, key);
};

/** Settings every process reads. */
export class CommonSettings {
  @IsRedisUrl()
  REDIS_URL = 'redis://127.0.0.1:6379';

  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  @IsOptional()
  @IsIn(['development', 'production', 'test'], { message: 'NODE_ENV must be development, production or test' })
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @ToInt()
  @IsInt({ message: 'SHUTDOWN_TIMEOUT_MS must be an integer' })
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;
}
