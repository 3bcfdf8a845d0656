import { ApiResponse } from '@nestjs/swagger';

/**
 * The plan refusal a seat-adding route documents. Entitlements are read from this service's own
 * billing tables, never from the provider, so these routes never answer 503 billing_unavailable;
 * with no provider configured nothing is sold and no limit applies.
 */
export function ApiPlanLimit(refusal: string) {
  return ApiResponse({
    status: 422,
    description:
      `code null: ${refusal} (see GET /billing entitlements). Checked against our billing records only, so the ` +
      "provider being unreachable never fails this route (no 503 billing_unavailable); billing never changes what an agent may do.",
  });
}
