import { ErrorCatalog } from '@bursar/errors';

export const ReconciliationRunErrors = new ErrorCatalog({
  run_in_progress: { status: 409, message: 'A reconciliation run for this source is queued or running', hint: "Wait for the current run to finish (GET its reconciliation run) before starting another for this source" },
});
