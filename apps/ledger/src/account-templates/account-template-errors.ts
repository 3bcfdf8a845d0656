import { ErrorCatalog } from '@bursar/errors';

export const AccountTemplateErrors = new ErrorCatalog({
  already_exists: { status: 409, message: 'An account template with this name exists; templates are immutable', hint: "Templates are immutable: create one under a new name" },
  account_template_unknown: { status: 422, message: 'No account template has this name', hint: "Create the template first, or check its name with GET /ledger/v1/account_templates" },
});
