import { ErrorCatalog } from '@bursar/errors';

export const BudgetErrors = new ErrorCatalog({
  budget_ceiling: { status: 422, message: "The budget exceeds the agent's max_budget_cents", hint: "Ask for at most ceiling_cents, or raise the agent's max_budget_cents from the dashboard" },
  parent_budget_exhausted: { status: 422, message: 'The parent budget has less left than this budget asks for', hint: "Ask for at most ceiling_cents (what the parent has left), or open the budget without a parent" },
});
