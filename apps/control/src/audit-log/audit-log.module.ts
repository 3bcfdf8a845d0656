import { Module } from '@nestjs/common';
import { CosignModule } from '../cosign/cosign.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AuditLogController } from './audit-log.controller';
import { AuditLogService } from './audit-log.service';
import { AUDIT_LOG_SEALING } from './audit-log-sealing.worker';

@Module({
  imports: [WorkspacesModule, CosignModule],
  controllers: [AuditLogController],
  providers: [AuditLogService, AUDIT_LOG_SEALING],
  exports: [AuditLogService],
})
export class AuditLogModule {}
