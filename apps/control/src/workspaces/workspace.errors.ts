import { ErrorCatalog } from '@bursar/errors';

export const WorkspaceErrors = new ErrorCatalog({
  insufficient_role: { status: 403, message: 'Your role in this workspace lacks the capability this needs', hint: "Ask a workspace owner for the capability this operation needs (approve, manage_policy or manage_members)" },
});
