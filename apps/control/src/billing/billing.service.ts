import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, personActor } from '../audit/audit-subjects';
import { AuditService } from '../audit/audit.service';
import { unprocessable } from '../common/control-errors';
import { ControlSettings } from '../config/control.settings';
import type { Identity } from '../identity/identity-token.verifier';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { BillingAccount } from './billing-account.entity';
import { BillingOverview, currentPeriod, effectivePlan, isSubscribed, presentOverview, presentSubscription } from './billing-overview';
import { PACK_PRICE_KEY, PACK_UNIT_VOLUME_CENTS, parsePriceList, PlanId, PLANS } from './billing-plans';
import { BillingProviderClient, CheckoutRequest, ProviderSubscription } from './billing-provider.client';
import { billingNotConfigured } from './billing.errors';
import { AccountFields, BillingRepository } from './billing.repository';
import { CheckoutDto } from './dto/checkout.dto';
import { PackDto } from './dto/pack.dto';
import { subscriptionFields } from './provider-subscription';

/** What a workspace is about to add: one more agent (live or not) or one more member. */
export type NewSeat = { kind: 'agents'; live: boolean } | { kind: 'members' };

export type CheckoutResult =
  | { checkout_url: string; checkout_id: string; plan: PlanId }
  | { plan_changed: boolean; plan: PlanId; status: string | null };

/** Who asked, and under which trace, for the audit record of a billing write. */
export interface BillingCaller {
  access: WorkspaceAccess;
  identity: Identity;
  traceId: string;
}

/**
 * Plans and subscriptions. Provider calls happen outside database transactions (no lock waits on
 * the network); their results are applied under the account's row lock with the audit record.
 * Nothing here sits in the authorization path: agents are authorized whatever billing says.
 */
@Injectable()
export class BillingService {
  private readonly prices: Map<string, string>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: BillingRepository,
    private readonly provider: BillingProviderClient,
    private readonly audit: AuditService,
    settings: ControlSettings,
  ) {
    this.prices = parsePriceList(settings.BILLING_PRICES);
  }

  async overview(workspaceId: string): Promise<BillingOverview> {
    const account = await this.billing.findAccount(workspaceId);
    const period = currentPeriod(account);
    const [usage, prepaid] = await Promise.all([
      this.billing.usage(workspaceId, period.start, period.end),
      this.billing.prepaid(workspaceId, period.start, period.end),
    ]);
    const purchasable = new Set(this.provider.configured ? this.prices.keys() : []);
    return presentOverview({ configured: this.provider.configured, account, usage, prepaid, period, purchasable });
  }

  /**
   * Refuses (422, code null) an agent or member beyond the plan's limit, and a live agent on a plan
   * without live mode. Runs in the caller's transaction under the billing account's row lock, so
   * concurrent adds count each other and a plan change applies before or after, never during.
   * It reads only our billing tables, never the provider, so it cannot answer billing_unavailable;
   * the decision path never calls it, so billing cannot change what an agent is authorized to do.
   */
  async assertEntitled(em: EntityManager, workspaceId: string, seat: NewSeat): Promise<void> {
    if (!this.provider.configured) return;
    const plan = PLANS[effectivePlan(true, await this.billing.lockAccount(em, workspaceId))];
    if (seat.kind === 'agents' && seat.live && !plan.live_mode) {
      throw unprocessable(`Live agents need a plan with live mode; the ${plan.name} plan is test-only: upgrade it or create a test agent`);
    }
    const limit = plan.limits[seat.kind];
    if (limit !== null && (await this.billing.seatsInUse(em, workspaceId))[seat.kind] >= limit) {
      throw unprocessable(`The ${plan.name} plan allows ${limit} ${seat.kind}; upgrade the plan to add more`);
    }
  }

  /** A hosted checkout for `plan`, or, when already subscribed, the plan changed in place (prorated). */
  async checkout(caller: BillingCaller, dto: CheckoutDto): Promise<CheckoutResult> {
    this.requireConfigured();
    const workspaceId = caller.access.workspace.id;
    const account = await this.billing.findAccount(workspaceId);
    const plan = dto.plan ?? (isSubscribed(account) ? account.plan : 'build');
    if (plan === 'sandbox') throw unprocessable('Sandbox is the free plan: cancel the subscription to return to it at period end');
    const price = this.priceOf(plan, `The ${plan} plan is not sold through checkout; contact sales`);
    if (isSubscribed(account)) {
      if (account.plan === plan && !account.cancel_at_period_end) return { plan_changed: false, plan, status: account.subscription_status };
      const sub = await this.provider.changePrice(workspaceId, caller.traceId, account.subscription_id, price, plan);
      const updated = await this.applySubscription(caller, sub, plan);
      return { plan_changed: account.plan !== updated.plan, plan: updated.plan, status: updated.subscription_status };
    }
    const session = await this.startCheckout(caller, account, dto.email, { mode: 'subscription', price, quantity: 1, metadata: { kind: 'subscription', plan } }, {
      kind: 'subscription',
      plan,
      units: null,
      volume_cents: 0,
    });
    return { checkout_url: session.url, checkout_id: session.id, plan };
  }

  /** A hosted one-off payment for `units` prepaid volume packs. */
  async buyPacks(caller: BillingCaller, dto: PackDto) {
    this.requireConfigured();
    const price = this.priceOf(PACK_PRICE_KEY, 'Prepaid packs are not sold on this deployment');
    const account = await this.billing.findAccount(caller.access.workspace.id);
    const volume = dto.units * PACK_UNIT_VOLUME_CENTS;
    const session = await this.startCheckout(
      caller,
      account,
      dto.email,
      { mode: 'payment', price, quantity: dto.units, metadata: { kind: 'pack', units: String(dto.units) } },
      { kind: 'pack', plan: null, units: dto.units, volume_cents: volume },
    );
    return { checkout_url: session.url, checkout_id: session.id, units: dto.units, volume_cents: volume };
  }

  /** A customer-portal session; only a workspace the provider knows as a customer has one. */
  async portal(workspaceId: string, requestId: string): Promise<{ portal_url: string }> {
    this.requireConfigured();
    const account = await this.billing.findAccount(workspaceId);
    if (!account?.customer_id) throw unprocessable('This workspace has never been billed: start a checkout first');
    const session = await this.provider.createPortal(workspaceId, requestId, account.customer_id);
    return { portal_url: session.url };
  }

  /** Asks the provider to end the subscription at the end of the period already paid for. */
  async cancel(caller: BillingCaller): Promise<BillingOverview> {
    this.requireConfigured();
    const workspaceId = caller.access.workspace.id;
    const account = await this.billing.findAccount(workspaceId);
    if (!isSubscribed(account)) throw unprocessable('This workspace has no subscription to cancel');
    const sub = await this.provider.cancelAtPeriodEnd(workspaceId, caller.traceId, account.subscription_id);
    await this.applySubscription(caller, sub, account.plan, 'billing.subscription.cancel_requested');
    return this.overview(workspaceId);
  }

  /** Re-reads the subscription from the provider, for when a webhook was missed. */
  async refresh(caller: BillingCaller): Promise<BillingOverview> {
    this.requireConfigured();
    const workspaceId = caller.access.workspace.id;
    const account = await this.billing.findAccount(workspaceId);
    if (account?.subscription_id) {
      await this.applySubscription(caller, await this.provider.getSubscription(account.subscription_id), account.plan);
    }
    return this.overview(workspaceId);
  }

  /** Applies provider state under the row lock; records `action`, or billing.plan.changed when the plan moved. */
  private async applySubscription(caller: BillingCaller, sub: ProviderSubscription, plan: PlanId, action?: string): Promise<BillingAccount> {
    return retryingTransaction(this.dataSource, async (em) => {
      const workspaceId = caller.access.workspace.id;
      const before = (await this.billing.lockAccount(em, workspaceId)) as BillingAccount;
      // Whole seconds, as provider event times are: an event from the same second still applies.
      const syncedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
      const fields: AccountFields = { ...subscriptionFields(sub, this.prices, plan), synced_at: syncedAt };
      const after = await this.billing.updateAccount(em, workspaceId, fields);
      const actor = personActor(caller.access.membership.user_sub);
      if (before.plan !== after.plan) await this.record(em, after, 'billing.plan.changed', caller.traceId, actor, { previous_plan: before.plan });
      if (action) await this.record(em, after, action, caller.traceId, actor);
      return after;
    });
  }

  private async startCheckout(
    caller: BillingCaller,
    account: BillingAccount | null,
    email: string | undefined,
    request: Pick<CheckoutRequest, 'mode' | 'price' | 'quantity' | 'metadata'>,
    record: { kind: 'subscription' | 'pack'; plan: PlanId | null; units: number | null; volume_cents: number },
  ) {
    const workspaceId = caller.access.workspace.id;
    const session = await this.provider.createCheckout({
      ...request,
      workspaceId,
      customer: account?.customer_id ?? null,
      email: email ?? caller.identity.email,
    }, caller.traceId);
    await retryingTransaction(this.dataSource, async (em) => {
      const locked = (await this.billing.lockAccount(em, workspaceId)) as BillingAccount;
      if (!(await this.billing.insertCheckout(em, workspaceId, { id: session.id, ...record, started_by_sub: caller.identity.sub }))) return;
      const action = record.kind === 'pack' ? 'billing.pack.started' : 'billing.checkout.started';
      await this.record(em, locked, action, caller.traceId, personActor(caller.identity.sub), { checkout_id: session.id, ...record });
    });
    return session;
  }

  /** Appends a `Subscription` audit event in the caller's transaction. */
  record(em: EntityManager, account: BillingAccount, action: string, traceId: string | null, actor: AuditActor, extra: object = {}) {
    return this.audit.append(em, account.workspace_id, {
      subject_type: 'Subscription',
      subject_id: account.id,
      action,
      trace_id: traceId,
      snapshot: { plan: account.plan, subscription: presentSubscription(account), ...extra },
      actor,
    });
  }

  private priceOf(key: string, missing: string): string {
    const price = this.prices.get(key);
    if (!price) throw unprocessable(missing);
    return price;
  }

  private requireConfigured(): void {
    if (!this.provider.configured) throw billingNotConfigured();
  }
}
