import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { ControlSettings } from './config/control.settings';
import { controlDataSourceOptions } from './database/control-database';

@Module({})
export class ControlAppModule {
  static forRoot(settings: ControlSettings, logger: Logger): DynamicModule {
    return {
      module: ControlAppModule,
      imports: [
        ServiceKitModule.forRoot({ serviceName: 'control', logger, redisUrl: settings.REDIS_URL }),
        TypeOrmModule.forRoot({ ...controlDataSourceOptions(settings.CONTROL_DATABASE_URL), retryAttempts: 0 }),
      ],
      providers: [{ provide: ControlSettings, useValue: settings }],
      exports: [ControlSettings],
    };
  }
}
