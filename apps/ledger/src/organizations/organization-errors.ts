import { ErrorCatalog } from '@bursar/errors';

export const OrganizationErrors = new ErrorCatalog({
  tenant_suspended: { status: 403, message: 'The organization is suspended: it can read but not write', hint: "Reads still work; ask the operator to reactivate the organization before writing" },
  plan_required: { status: 402, message: "The organization's plan does not include this operation", hint: "Upgrade the organization's plan to use this operation" },
});
