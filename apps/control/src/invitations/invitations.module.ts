import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MembershipsModule } from '../memberships/memberships.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { InvitationsController, WorkspaceInvitationsController } from './invitations.controller';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';

@Module({
  imports: [WorkspacesModule, MembershipsModule, BillingModule],
  controllers: [WorkspaceInvitationsController, InvitationsController],
  providers: [InvitationsRepository, InvitationsService],
})
export class InvitationsModule {}
