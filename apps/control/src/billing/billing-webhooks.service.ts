import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '@bursar/errors';
import { verifySignatureHeader } from '@bursar/crypto';
import { isUniqueViolation, LOGGER, retryingTransaction } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { parsePriceList, PlanId } from './billing-plans';
import type { ProviderSubscription } from './billing-provider.client';
import { BillingErrors } from './billing.errors';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { subscriptionFields, unixDate } from './provider-subscription';

/** Largest |now - t| a signature may show, so a captured delivery cannot be replayed later. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SYSTEM = { type: 'system', id: null } as const;

export interface ProviderEvent {
  id: string;
  type: string;
  created?: number;
  data: { object: Record<string, unknown> };
}

interface CheckoutSession {
  id?: unknown;
  customer?: unknown;
  subscription?: unknown;
  payment_status?: unknown;
}

export interface WebhookReceipt {
  id: string;
  type: string;
  /** True when this event id was applied before; nothing changed this time. */
  duplicate: boolean;
  /** True when the event could not apply (it named a subscription another workspace holds): acknowledged, recorded, nothing changed. */
  ignored: boolean;
}

/** The unique index that keeps one provider subscription to one workspace. */
const ONE_WORKSPACE_PER_SUBSCRIPTION = 'billing_accounts_subscription_id_key';

/**
 * Inbound provider events. Each is verified over the exact bytes received, then applied in one
 * transaction that also claims its id, so a redelivery (or a concurrent duplicate) changes nothing.
 */
@Injectable()
export class BillingWebhooksService {
  private readonly prices: Map<string, string>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: BillingRepository,
    private readonly service: BillingService,
    private readonly settings: ControlSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.prices = parsePriceList(settings.BILLING_PRICES);
  }

  async receive(raw: Buffer | undefined, header: string | undefined, traceId: string): Promise<WebhookReceipt> {
    this.verify(raw, header);
    const event = parseEvent(raw as Buffer);
    const receipt = { id: event.id, type: event.type, duplicate: false, ignored: false };
    try {
      return await retryingTransaction(this.dataSource, async (em) => {
        if (!(await this.billing.claimEvent(em, event.id, event.type))) return { ...receipt, duplicate: true };
        const workspaceId = await this.apply(em, event, traceId);
        if (workspaceId) await this.billing.attachEvent(em, workspaceId, event.id);
        return receipt;
      });
    } catch (e) {
      if (!isUniqueViolation(e, ONE_WORKSPACE_PER_SUBSCRIPTION)) throw e;
      // Retrying cannot fix it, so, as Stripe receivers do, acknowledge (no redelivery storm), change
      // nothing, keep the id so a redelivery is a duplicate, and leave it to an operator.
      this.logger.warn({ eventId: event.id, type: event.type, traceId }, 'billing event names a subscription another workspace holds; ignored');
      const claimed = await retryingTransaction(this.dataSource, (em) => this.billing.claimEvent(em, event.id, event.type));
      return { ...receipt, duplicate: !claimed, ignored: claimed };
    }
  }

  private verify(raw: Buffer | undefined, header: string | undefined): void {
    const secret = this.settings.BILLING_WEBHOOK_SECRET;
    // With no secret configured nothing can be trusted, so every delivery is refused.
    if (!secret || !raw || !header) throw BillingErrors.error('invalid_signature');
    const result = verifySignatureHeader(raw, header, secret, { toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS });
    if (!result.ok) throw BillingErrors.error('invalid_signature', { message: `The billing webhook signature did not verify (${result.reason})` });
  }

  /** Applies one event; answers the workspace it touched, null for events this service ignores. */
  private apply(em: EntityManager, event: ProviderEvent, traceId: string): Promise<string | null> {
    const object = event.data.object;
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return this.completeCheckout(em, object as CheckoutSession, traceId);
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return this.syncSubscription(em, event, object as unknown as ProviderSubscription, traceId);
      default:
        return Promise.resolve(null);
    }
  }

  private async completeCheckout(em: EntityManager, session: CheckoutSession, traceId: string): Promise<string | null> {
    // A delayed payment method completes the session unpaid; its async_payment_succeeded follows.
    if (typeof session.id !== 'string' || session.payment_status === 'unpaid') return null;
    const checkout = await this.billing.completeCheckout(em, session.id);
    if (!checkout) return null;
    const before = await this.billing.lockAccount(em, checkout.workspace_id);
    if (!before) return null;
    const customer = typeof session.customer === 'string' ? session.customer : before.customer_id;
    if (checkout.kind === 'pack') {
      await this.billing.updateAccount(em, checkout.workspace_id, { customer_id: customer });
      return checkout.workspace_id;
    }
    const subscription = typeof session.subscription === 'string' ? session.subscription : before.subscription_id;
    // A subscription event may have arrived first and already set the status.
    const known = subscription !== null && subscription === before.subscription_id && before.subscription_status !== null;
    const after = await this.billing.updateAccount(em, checkout.workspace_id, {
      customer_id: customer,
      subscription_id: subscription,
      subscription_status: known ? before.subscription_status : 'active',
      plan: checkout.plan as PlanId,
      cancel_at_period_end: known ? before.cancel_at_period_end : false,
    });
    if (before.plan !== after.plan) await this.service.record(em, after, 'billing.plan.changed', traceId, SYSTEM, { previous_plan: before.plan });
    return checkout.workspace_id;
  }

  private async syncSubscription(em: EntityManager, event: ProviderEvent, sub: ProviderSubscription, traceId: string): Promise<string | null> {
    if (typeof sub.id !== 'string' || typeof sub.status !== 'string') return null;
    const metadataWorkspace = sub.metadata?.workspace_id;
    const workspaceId =
      (await this.billing.workspaceOf(em, { subscriptionId: sub.id })) ??
      (typeof metadataWorkspace === 'string' && UUID.test(metadataWorkspace) ? metadataWorkspace : null);
    if (!workspaceId) return null;
    const before = await this.billing.lockAccount(em, workspaceId);
    if (!before) return null;
    // Events about a subscription the workspace has since replaced, or older than what was applied, change nothing.
    if (before.subscription_id && before.subscription_id !== sub.id) return workspaceId;
    const created = unixDate(event.created) ?? new Date();
    const deleted = event.type === 'customer.subscription.deleted';
    // Deletion is final, so it applies whatever arrived before it.
    if (!deleted && before.synced_at && created < before.synced_at) return workspaceId;
    const status = deleted ? 'canceled' : sub.status;
    const fields = subscriptionFields({ ...sub, status }, this.prices, before.plan);
    const after = await this.billing.updateAccount(em, workspaceId, { ...fields, synced_at: created });
    if (before.plan !== after.plan) await this.service.record(em, after, 'billing.plan.changed', traceId, SYSTEM, { previous_plan: before.plan });
    return workspaceId;
  }
}

/** The event envelope; a verified body that is not one is a 400, like any malformed request. */
function parseEvent(raw: Buffer): ProviderEvent {
  let event: unknown;
  try {
    event = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError(400, null, 'The webhook body is not JSON', { hint: 'Forward the billing provider\'s request body unchanged' });
  }
  const e = event as Partial<ProviderEvent> | null;
  const valid =
    typeof e === 'object' && e !== null && typeof e.id === 'string' && e.id.length > 0 && e.id.length <= 255 &&
    typeof e.type === 'string' && typeof e.data === 'object' && e.data !== null &&
    typeof e.data.object === 'object' && e.data.object !== null && (e.created === undefined || unixDate(e.created) !== null);
  if (!valid) {
    throw new ApiError(400, null, 'The webhook body must be an event: {id, type, created, data: {object}}', {
      hint: "Point the billing provider's webhook at this URL; it sends events in this shape",
    });
  }
  return e as ProviderEvent;
}
