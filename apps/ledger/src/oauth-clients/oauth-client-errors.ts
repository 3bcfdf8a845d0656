import { ErrorCatalog } from '@bursar/errors';

export const OauthClientErrors = new ErrorCatalog({
  rotation_in_progress: { status: 409, message: 'The previous secret is still inside its 24-hour overlap window', hint: "Wait until the previous secret's overlap window ends (24 hours after the last rotation), then rotate again" },
  invalid_state: { status: 409, message: 'The client is disabled', hint: "Enable the client again before using or rotating it" },
});
