import { ErrorCatalog } from '@bursar/errors';

export const AccountTemplateErrors = new ErrorCatalog({
  already_exists: { status: 409, message: 'An account template with this name exists; templates are immutable' },
  account_template_unknown: { status: 422, message: 'No account template has this name' },
});
