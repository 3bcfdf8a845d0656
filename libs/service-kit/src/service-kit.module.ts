import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, OnApplicationShutdown, RequestMethod } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { HealthController } from './health/health.controller';
import { rejectUnusableInput } from './http/unusable-input.middleware';
import { READINESS_CHECKS, ReadinessCheck } from './health/readiness-check';
import { MetricsController } from './observability/metrics.controller';
import { MetricsService } from './observability/metrics.service';
import { RateLimiters } from './rate-limit/rate-limiters';
import { createRedisClient, pingRedis, REDIS } from './redis/redis-connection';

export const LOGGER = Symbol('LOGGER');

export interface ServiceKitOptions {
  serviceName: string;
  logger: Logger;
  redisUrl: string;
}

class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * What every process serves and holds besides its own features: the logger, a Redis client,
 * /healthz, /readyz (Postgres when the app has a DataSource, and Redis) and /metrics; and the refusal
 * of input no handler can use, before any of them sees it.
 */
@Module({})
export class ServiceKitModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(rejectUnusableInput).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }

  static forRoot(options: ServiceKitOptions): DynamicModule {
    return {
      module: ServiceKitModule,
      global: true,
      imports: [TerminusModule],
      controllers: [HealthController, MetricsController],
      providers: [
        MetricsService,
        RedisCloser,
        { provide: LOGGER, useValue: options.logger },
        {
          provide: REDIS,
          useFactory: () => createRedisClient(options.redisUrl, options.logger, `${options.serviceName}-app`),
        },
        {
          provide: RateLimiters,
          inject: [REDIS, MetricsService],
          useFactory: (redis: Redis, metrics: MetricsService) => new RateLimiters(redis, options.logger, metrics.registry),
        },
        {
          provide: READINESS_CHECKS,
          inject: [REDIS, { token: DataSource, optional: true }],
          useFactory: (redis: Redis, dataSource?: DataSource): ReadinessCheck[] => [
            ...(dataSource ? [{ name: 'postgres', probe: async () => void (await dataSource.query('SELECT 1')) }] : []),
            { name: 'redis', probe: () => pingRedis(redis) },
          ],
        },
      ],
      exports: [LOGGER, REDIS, MetricsService, RateLimiters],
    };
  }
}
