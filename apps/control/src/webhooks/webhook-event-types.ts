/** Control webhook event types (reference s.12); registering any other name is refused with 422. */
export const CONTROL_WEBHOOK_EVENTS = [
  'action.requires_approval',
  'action.completed',
  'action.failed',
  'payment.requires_approval',
  'payment.executed',
  'payment.failed',
  'approval.resolved',
  'budget.low',
  'spend_token.expired',
  'policy_backtest.completed',
] as const;
export type ControlWebhookEvent = (typeof CONTROL_WEBHOOK_EVENTS)[number];
