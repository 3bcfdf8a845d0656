import { WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import { IntentApprovalsController } from './intent-approvals.controller';

@WorkspaceRoutes('payment_intents')
export class PaymentIntentsController extends IntentApprovalsController {
  protected readonly kind = 'payment' as const;
}
