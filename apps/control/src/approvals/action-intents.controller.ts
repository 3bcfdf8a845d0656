import { WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import { IntentApprovalsController } from './intent-approvals.controller';

@WorkspaceRoutes('action_intents')
export class ActionIntentsController extends IntentApprovalsController {
  protected readonly kind = 'action' as const;
}
