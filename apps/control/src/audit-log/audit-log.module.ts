import { Module } from '@nestjs/common';
import { CosignModule } from '../cosign/cosign.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AuditLogController } from './audit-log.controller';
import { AuditLogService } from './audit-log.service';
import { AuditLogSealingService } from './audit-log-sealing.service';

@Module({
  imports: [WorkspacesModule, CosignModule],
  controllers: [AuditLogController],
  providers: [AuditLogService, AuditLogSealingService],
  exports: [AuditLogService],
})
export class AuditLogModule {}
