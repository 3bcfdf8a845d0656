import { BillingAccount } from './billing-account.entity';
import { currentPeriod, presentOverview } from './billing-overview';

const period = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') };
const usage = (gated_volume: number) => ({ agents: 0, members: 1, payment_authorizations: 0, action_authorizations: 0, gated_volume });
const subscribed = (plan: BillingAccount['plan']) =>
  ({ id: 'a', workspace_id: 'w', plan, subscription_id: 'sub_1', subscription_status: 'active', cancel_at_period_end: false }) as BillingAccount;

describe('presentOverview', () => {
  it('spends prepaid packs before charging overage on the plan rate', () => {
    // Build allows 5,000,000 and charges 50 bps beyond; 300,000 of packs absorb the first excess.
    const view = presentOverview({
      configured: true,
      account: subscribed('build'),
      usage: usage(5_500_000),
      prepaid: { units: 3, volume_cents: 300_000 },
      period,
      purchasable: new Set(),
    });
    expect(view.prepaid).toEqual({ units: 3, volume_cents: 300_000, used_cents: 300_000, remaining_cents: 0 });
    expect(view.entitlements.gated_volume).toEqual({ limit: 5_300_000, used: 5_500_000, remaining: 0 });
    expect(view.entitlements.overage_cents).toBe(1_000); // 200,000 * 0.5%
  });

  it('reports unlimited dimensions as null limits and never charges them', () => {
    const view = presentOverview({ configured: true, account: subscribed('enterprise'), usage: usage(10 ** 12), prepaid: { units: 0, volume_cents: 0 }, period, purchasable: new Set() });
    expect(view.entitlements.agents).toEqual({ limit: null, used: 0, remaining: null });
    expect(view.entitlements.overage_cents).toBe(0);
  });

  it('meters a canceled or absent subscription on the calendar month', () => {
    const now = new Date('2026-02-14T12:00:00Z');
    const ended = { ...subscribed('build'), subscription_status: 'canceled', current_period_start: now, current_period_end: now } as BillingAccount;
    for (const account of [null, ended]) {
      expect(currentPeriod(account, now)).toEqual({ start: new Date('2026-02-01T00:00:00Z'), end: new Date('2026-03-01T00:00:00Z') });
    }
  });
});
