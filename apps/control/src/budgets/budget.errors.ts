import { ErrorCatalog } from '@bursar/errors';

export const BudgetErrors = new ErrorCatalog({
  budget_ceiling: { status: 422, message: "The budget exceeds the agent's max_budget_cents" },
  parent_budget_exhausted: { status: 422, message: 'The parent budget has less left than this budget asks for' },
});
