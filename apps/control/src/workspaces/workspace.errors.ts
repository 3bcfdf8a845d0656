import { ErrorCatalog } from '@bursar/errors';

export const WorkspaceErrors = new ErrorCatalog({
  insufficient_role: { status: 403, message: 'Your role in this workspace lacks the capability this needs' },
});
