import { BillingAccount } from './billing-account.entity';
import { METERED_DIMENSIONS, MeteredDimension, PLAN_IDS, PLANS, PlanId } from './billing-plans';
import type { Usage } from './billing.repository';

export interface Period {
  start: Date;
  end: Date;
}

export interface OverviewInput {
  configured: boolean;
  account: BillingAccount | null;
  usage: Usage;
  prepaid: { units: number; volume_cents: number };
  period: Period;
  /** Plans a checkout can sell (those with a provider price). */
  purchasable: Set<string>;
}

/** A subscription counts while the provider still bills it; canceled ones leave the workspace on sandbox. */
export function isSubscribed(account: BillingAccount | null): account is BillingAccount & { subscription_id: string } {
  return Boolean(account?.subscription_id) && account?.subscription_status !== 'canceled';
}

/**
 * The plan whose entitlements apply. A deployment with no billing provider sells nothing, so it
 * holds nobody to a plan: every workspace gets the unlimited, live-capable enterprise entitlements.
 */
export function effectivePlan(configured: boolean, account: BillingAccount | null): PlanId {
  if (!configured) return 'enterprise';
  return isSubscribed(account) ? account.plan : 'sandbox';
}

/** The metering period: the subscription's current period, else the calendar month (UTC). */
export function currentPeriod(account: BillingAccount | null, now = new Date()): Period {
  if (isSubscribed(account) && account.current_period_start && account.current_period_end && account.current_period_end > now) {
    return { start: account.current_period_start, end: account.current_period_end };
  }
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

export function presentSubscription(account: BillingAccount | null) {
  if (!isSubscribed(account)) return null;
  return {
    id: account.subscription_id,
    status: account.subscription_status,
    plan: account.plan,
    cancel_at_period_end: account.cancel_at_period_end,
    current_period_start: account.current_period_start,
    current_period_end: account.current_period_end,
  };
}

interface Allowance {
  limit: number | null;
  used: number;
  remaining: number | null;
}

function allowance(limit: number | null, used: number): Allowance {
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used) };
}

function presentPlan(id: PlanId, purchasable: Set<string>) {
  const { limits, ...plan } = PLANS[id];
  return { ...plan, limits, purchasable: purchasable.has(id) };
}

/** BillingOverview: plan, subscription, what the plan allows against what the period used, packs, the catalogue. */
export function presentOverview(input: OverviewInput) {
  const planId = effectivePlan(input.configured, input.account);
  const plan = PLANS[planId];
  const planVolume = plan.limits.gated_volume;
  // Packs widen the period's gated-volume allowance; volume beyond both is overage.
  const limits: Record<MeteredDimension, number | null> = {
    ...plan.limits,
    gated_volume: planVolume === null ? null : planVolume + input.prepaid.volume_cents,
  };
  const entitlements = Object.fromEntries(METERED_DIMENSIONS.map((d) => [d, allowance(limits[d], input.usage[d])])) as Record<MeteredDimension, Allowance>;
  const excess = limits.gated_volume === null ? 0 : Math.max(0, input.usage.gated_volume - limits.gated_volume);
  const beyondPlan = planVolume === null ? 0 : Math.max(0, input.usage.gated_volume - planVolume);
  const prepaidUsed = Math.min(input.prepaid.volume_cents, beyondPlan);
  return {
    configured: input.configured,
    plan: planId,
    subscription: presentSubscription(input.account),
    entitlements: {
      ...entitlements,
      live_mode: plan.live_mode,
      overage_cents: Math.ceil((excess * plan.overage_bps) / 10_000),
      audit_retention_days: plan.audit_retention_days,
      period_start: input.period.start,
      period_end: input.period.end,
    },
    prepaid: {
      units: input.prepaid.units,
      volume_cents: input.prepaid.volume_cents,
      used_cents: prepaidUsed,
      remaining_cents: input.prepaid.volume_cents - prepaidUsed,
    },
    plans: PLAN_IDS.map((id) => presentPlan(id, input.purchasable)),
  };
}
export type BillingOverview = ReturnType<typeof presentOverview>;
