import { Module } from '@nestjs/common';
import { MembershipsModule } from '../memberships/memberships.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { InvitationsController, WorkspaceInvitationsController } from './invitations.controller';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';

@Module({
  imports: [WorkspacesModule, MembershipsModule],
  controllers: [WorkspaceInvitationsController, InvitationsController],
  providers: [InvitationsRepository, InvitationsService],
})
export class InvitationsModule {}
