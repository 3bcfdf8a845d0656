import { Global, Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AuditEventsController } from './audit-events.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

/** Global because every writing module appends to the audit log. */
@Global()
@Module({
  imports: [WorkspacesModule],
  controllers: [AuditEventsController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
