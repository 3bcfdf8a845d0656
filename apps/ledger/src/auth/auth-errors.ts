import { ErrorCatalog } from '@bursar/errors';

export const AuthErrors = new ErrorCatalog({
  insufficient_scope: { status: 403, message: 'The access token lacks the scope this operation needs' },
});
