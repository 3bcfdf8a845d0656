import { ErrorCatalog } from '@bursar/errors';

export const OauthClientErrors = new ErrorCatalog({
  rotation_in_progress: { status: 409, message: 'The previous secret is still inside its 24-hour overlap window' },
  invalid_state: { status: 409, message: 'The client is disabled' },
});
