import { ErrorCatalog } from '@bursar/errors';

export const PeriodErrors = new ErrorCatalog({
  period_close_imbalanced: { status: 422, message: 'The trial balance at period_end does not net to zero in every currency', hint: "Post the missing entries so the trial balance nets to zero (details.residual_by_currency), or send force: true" },
  already_exists: { status: 409, message: 'A closed period already covers part of this window', hint: "Close a window that starts after the last closed period's end" },
});
