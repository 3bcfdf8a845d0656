export const PLAN_IDS = ['sandbox', 'build', 'growth', 'scale', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** The counted entitlement dimensions; `null` limits mean unlimited. */
export const METERED_DIMENSIONS = ['agents', 'members', 'payment_authorizations', 'action_authorizations', 'gated_volume'] as const;
export type MeteredDimension = (typeof METERED_DIMENSIONS)[number];

export interface Plan {
  id: PlanId;
  name: string;
  /** Monthly list price; null when sold by contract. */
  monthly_price_cents: number | null;
  limits: Record<MeteredDimension, number | null>;
  live_mode: boolean;
  audit_retention_days: number;
  /** Charge on gated volume beyond the allowance, in basis points of that volume. */
  overage_bps: number;
}

/** One prepaid pack unit adds this much gated volume to the billing period it is bought in. */
export const PACK_UNIT_VOLUME_CENTS = 100_000;
export const MAX_PACK_UNITS = 200;

/** The price list key of a pack unit in BILLING_PRICES. */
export const PACK_PRICE_KEY = 'pack';

const limits = (agents: number | null, members: number | null, payments: number | null, actions: number | null, volume: number | null) => ({
  agents,
  members,
  payment_authorizations: payments,
  action_authorizations: actions,
  gated_volume: volume,
});

/** The catalogue. Sandbox is free and test-only; the paid plans unlock live agents. */
export const PLANS: Record<PlanId, Plan> = {
  sandbox: { id: 'sandbox', name: 'Sandbox', monthly_price_cents: 0, limits: limits(3, 3, 1_000, 10_000, 100_000), live_mode: false, audit_retention_days: 7, overage_bps: 0 },
  build: { id: 'build', name: 'Build', monthly_price_cents: 4_900, limits: limits(10, 5, 10_000, 100_000, 5_000_000), live_mode: true, audit_retention_days: 30, overage_bps: 50 },
  growth: { id: 'growth', name: 'Growth', monthly_price_cents: 24_900, limits: limits(50, 20, 100_000, 1_000_000, 50_000_000), live_mode: true, audit_retention_days: 90, overage_bps: 30 },
  scale: { id: 'scale', name: 'Scale', monthly_price_cents: 99_900, limits: limits(250, 100, 1_000_000, 10_000_000, 500_000_000), live_mode: true, audit_retention_days: 365, overage_bps: 20 },
  enterprise: { id: 'enterprise', name: 'Enterprise', monthly_price_cents: null, limits: limits(null, null, null, null, null), live_mode: true, audit_retention_days: 2_555, overage_bps: 0 },
};

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

/** BILLING_PRICES (`build=price_1,pack=price_2`) as a map from plan or `pack` to the provider's price id. */
export function parsePriceList(list: string): Map<string, string> {
  return new Map(list.split(',').map((pair) => pair.split('=') as [string, string]));
}
