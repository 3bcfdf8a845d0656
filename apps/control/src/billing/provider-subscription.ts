import { isPlanId, PlanId } from './billing-plans';
import type { ProviderSubscription } from './billing-provider.client';
import type { AccountFields } from './billing.repository';

const MAX_UNIX_SECONDS = 95_617_584_000;

/** Provider statuses after which nothing is billed any more. */
const ENDED_STATUSES = ['canceled', 'incomplete_expired'];

/** Provider timestamps are unix seconds; anything else (or beyond year 5000) is ignored. */
export function unixDate(seconds: unknown): Date | null {
  return Number.isSafeInteger(seconds) && Math.abs(seconds as number) < MAX_UNIX_SECONDS ? new Date((seconds as number) * 1000) : null;
}

/**
 * The account columns a provider subscription implies. The plan comes from the item's price
 * (BILLING_PRICES reversed), else the subscription's `metadata.plan`, else stays `current`.
 * An ended subscription returns the workspace to sandbox and forgets the subscription id.
 */
export function subscriptionFields(sub: ProviderSubscription, prices: Map<string, string>, current: PlanId): AccountFields {
  if (ENDED_STATUSES.includes(sub.status)) {
    return {
      plan: 'sandbox',
      subscription_id: null,
      subscription_status: 'canceled',
      cancel_at_period_end: false,
      current_period_start: null,
      current_period_end: null,
      ...(typeof sub.customer === 'string' ? { customer_id: sub.customer } : {}),
    };
  }
  const item = sub.items?.data?.[0];
  const byPrice = [...prices].find(([key, price]) => price === item?.price?.id && isPlanId(key))?.[0];
  const plan = byPrice ?? sub.metadata?.plan;
  return {
    plan: isPlanId(plan) ? plan : current,
    subscription_id: sub.id,
    subscription_status: typeof sub.status === 'string' ? sub.status : 'active',
    cancel_at_period_end: sub.cancel_at_period_end === true,
    current_period_start: unixDate(sub.current_period_start ?? item?.current_period_start),
    current_period_end: unixDate(sub.current_period_end ?? item?.current_period_end),
    ...(typeof sub.customer === 'string' ? { customer_id: sub.customer } : {}),
  };
}
