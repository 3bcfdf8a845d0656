import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { AccountController } from './account.controller';
import { WorkspaceAccessGuard } from './workspace-access.guard';
import { WorkspaceExportRepository } from './workspace-export.repository';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [IdentityModule],
  controllers: [WorkspacesController, AccountController],
  providers: [WorkspacesRepository, WorkspaceExportRepository, WorkspacesService, WorkspaceAccessGuard],
  exports: [IdentityModule, WorkspacesRepository, WorkspacesService, WorkspaceAccessGuard],
})
export class WorkspacesModule {}
