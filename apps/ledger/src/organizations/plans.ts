/**
 * Plans and what they unlock. Only one operation is plan-gated: creating live-mode OAuth clients
 * through the API (self-service go-live). Free organizations get live clients from the operator
 * (`ledger:admin create-client`); everything else is the same on every plan.
 */
export const PLANS = ['free', 'growth', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanFeatures {
  selfServiceLiveClients: boolean;
}

const FEATURES: Record<Plan, PlanFeatures> = {
  free: { selfServiceLiveClients: false },
  growth: { selfServiceLiveClients: true },
  enterprise: { selfServiceLiveClients: true },
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** An unknown plan name (set by hand in the database) gets the free plan's features. */
export function planFeatures(plan: string): PlanFeatures {
  return isPlan(plan) ? FEATURES[plan] : FEATURES.free;
}
