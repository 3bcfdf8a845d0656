import { ErrorCatalog } from '@bursar/errors';

export const WebhookErrors = new ErrorCatalog({
  rotation_in_progress: { status: 409, message: 'The previous signing secret is still inside its 24-hour overlap window', hint: "Wait until the previous secret's 24-hour overlap ends, then rotate again" },
  webhook_endpoint_disabled: { status: 409, message: 'The webhook endpoint is disabled; re-enable it with PATCH active=true before sending', hint: "Re-enable the endpoint with PATCH {\"active\": true}, then send again" },
});
