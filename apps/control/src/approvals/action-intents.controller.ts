import { Controller, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdentityGuard } from '../identity/identity.guard';
import { WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import { IntentApprovalsController } from './intent-approvals.controller';

@ApiTags('action intents')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@Controller('control/v1/workspaces/:workspace_slug/action_intents')
export class ActionIntentsController extends IntentApprovalsController {
  protected readonly kind = 'action' as const;
}
