import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { AgentsModule } from './agents/agents.module';
import { AuditModule } from './audit/audit.module';
import { BudgetsModule } from './budgets/budgets.module';
import { ControlSettings } from './config/control.settings';
import { controlDataSourceOptions } from './database/control-database';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class ControlAppModule {
  static forRoot(settings: ControlSettings, logger: Logger): DynamicModule {
    return {
      module: ControlAppModule,
      // Settings are read by feature modules' providers (the identity verifier, say).
      global: true,
      imports: [
        ServiceKitModule.forRoot({ serviceName: 'control', logger, redisUrl: settings.REDIS_URL }),
        TypeOrmModule.forRoot({ ...controlDataSourceOptions(settings.CONTROL_DATABASE_URL), retryAttempts: 0 }),
        AuditModule,
        WorkspacesModule,
        AgentsModule,
        BudgetsModule,
      ],
      providers: [{ provide: ControlSettings, useValue: settings }],
      exports: [ControlSettings],
    };
  }
}
