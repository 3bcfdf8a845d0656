import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { ApiError } from '@bursar/errors';
import { ControlSettings } from '../config/control.settings';
import { billingNotConfigured, billingUnavailable } from './billing.errors';

/** The provider's subscription object, as far as this service reads it. */
export interface ProviderSubscription {
  id: string;
  customer: string;
  status: string;
  cancel_at_period_end?: boolean;
  current_period_start?: number;
  current_period_end?: number;
  metadata?: Record<string, string>;
  items?: { data?: { id: string; price?: { id?: string }; current_period_start?: number; current_period_end?: number }[] };
}

export interface ProviderSession {
  id: string;
  url: string;
}

export interface CheckoutRequest {
  mode: 'subscription' | 'payment';
  price: string;
  quantity: number;
  workspaceId: string;
  customer: string | null;
  email: string | null;
  metadata: Record<string, string>;
}

/** The provider's API version this adapter is written against; the SDK sends it on every call. */
export const BILLING_API_VERSION = '2026-10-28.endive';

/**
 * Adapter to the billing provider through its official SDK (Stripe), pointed at BILLING_API_URL so
 * a local fake can stand in. Every POST carries an idempotency key derived from the operation, the
 * workspace, the request id and the parameters, so the same request retried (by the SDK or by a
 * client repeating its X-Request-Id) cannot start a second checkout or apply a change twice.
 * Anything other than an answer (refused connection, timeout, 429, 5xx) is `billing_unavailable`.
 */
@Injectable()
export class BillingProviderClient {
  private readonly stripe: Stripe | null;

  constructor(private readonly settings: ControlSettings) {
    const url = new URL(settings.BILLING_API_URL);
    const secure = url.protocol === 'https:';
    this.stripe = settings.BILLING_API_KEY
      ? new Stripe(settings.BILLING_API_KEY, {
          apiVersion: BILLING_API_VERSION,
          host: url.hostname,
          port: url.port ? Number(url.port) : secure ? 443 : 80,
          protocol: secure ? 'https' : 'http',
          timeout: settings.BILLING_TIMEOUT_MS,
          // The caller retries after Retry-After; SDK retries would stretch the deadline.
          maxNetworkRetries: 0,
          telemetry: false,
        })
      : null;
  }

  get configured(): boolean {
    return this.stripe !== null;
  }

  /** A hosted checkout; the workspace id rides along so the completion webhook can be matched. */
  createCheckout(req: CheckoutRequest, requestId: string): Promise<ProviderSession> {
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: req.mode,
      line_items: [{ price: req.price, quantity: req.quantity }],
      client_reference_id: req.workspaceId,
      success_url: this.settings.BILLING_RETURN_URL,
      cancel_url: this.settings.BILLING_RETURN_URL,
      metadata: { workspace_id: req.workspaceId, ...req.metadata },
      ...(req.mode === 'subscription' && { subscription_data: { metadata: { workspace_id: req.workspaceId } } }),
      ...(req.customer ? { customer: req.customer } : req.email ? { customer_email: req.email } : {}),
    };
    return this.call(async (stripe) => {
      const session = await stripe.checkout.sessions.create(params, { idempotencyKey: idempotencyKey('checkout', req.workspaceId, requestId, params) });
      if (!session.url) throw new ApiError(502, null, 'The billing provider returned a checkout session without a URL');
      return { id: session.id, url: session.url };
    });
  }

  getSubscription(id: string): Promise<ProviderSubscription> {
    return this.call(async (stripe) => asSubscription(await stripe.subscriptions.retrieve(id)));
  }

  /** Moves the subscription's single item to another price, prorated, as a plan change does. */
  async changePrice(workspaceId: string, requestId: string, id: string, price: string, plan: string): Promise<ProviderSubscription> {
    const current = await this.getSubscription(id);
    const item = current.items?.data?.[0];
    if (!item) throw new ApiError(502, null, 'The billing provider returned a subscription without items');
    const params: Stripe.SubscriptionUpdateParams = {
      items: [{ id: item.id, price }],
      proration_behavior: 'create_prorations',
      cancel_at_period_end: false,
      metadata: { plan },
    };
    return this.call(async (stripe) =>
      asSubscription(await stripe.subscriptions.update(id, params, { idempotencyKey: idempotencyKey('change_price', workspaceId, requestId, { id, ...params }) })),
    );
  }

  cancelAtPeriodEnd(workspaceId: string, requestId: string, id: string): Promise<ProviderSubscription> {
    const params: Stripe.SubscriptionUpdateParams = { cancel_at_period_end: true };
    return this.call(async (stripe) =>
      asSubscription(await stripe.subscriptions.update(id, params, { idempotencyKey: idempotencyKey('cancel', workspaceId, requestId, { id, ...params }) })),
    );
  }

  createPortal(workspaceId: string, requestId: string, customer: string): Promise<{ url: string }> {
    const params: Stripe.BillingPortal.SessionCreateParams = { customer, return_url: this.settings.BILLING_RETURN_URL };
    return this.call(async (stripe) => {
      const session = await stripe.billingPortal.sessions.create(params, { idempotencyKey: idempotencyKey('portal', workspaceId, requestId, params) });
      return { url: session.url };
    });
  }

  private async call<T>(run: (stripe: Stripe) => Promise<T>): Promise<T> {
    if (!this.stripe) throw billingNotConfigured();
    try {
      return await run(this.stripe);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const status = err instanceof Stripe.errors.StripeError ? err.statusCode : undefined;
      if (status === undefined || status >= 500 || status === 429) throw billingUnavailable();
      // A refusal is a configuration problem (an unknown price, say), not the caller's input.
      throw new ApiError(502, null, `The billing provider refused the request (HTTP ${status})`);
    }
  }
}

/** Same operation, workspace, request and parameters: same key, so the provider answers a repeat once. */
export function idempotencyKey(operation: string, workspaceId: string, requestId: string, params: object): string {
  const digest = createHash('sha256').update(JSON.stringify([operation, workspaceId, requestId, params])).digest('base64url');
  return `bursar-${operation}-${digest}`;
}

/**
 * The SDK's subscription narrowed to what this service reads (webhook payloads arrive in the same
 * shape). Periods sit on the items in the pinned API version; older payloads carried them on the
 * subscription, which is still read when present.
 */
function asSubscription(sub: Stripe.Subscription): ProviderSubscription {
  const legacy = sub as Stripe.Subscription & Pick<ProviderSubscription, 'current_period_start' | 'current_period_end'>;
  return {
    id: sub.id,
    customer: typeof sub.customer === 'string' ? sub.customer : sub.customer.id,
    status: sub.status,
    cancel_at_period_end: sub.cancel_at_period_end,
    current_period_start: legacy.current_period_start,
    current_period_end: legacy.current_period_end,
    metadata: sub.metadata,
    items: {
      data: sub.items.data.map((item) => ({
        id: item.id,
        price: { id: item.price.id },
        current_period_start: item.current_period_start,
        current_period_end: item.current_period_end,
      })),
    },
  };
}
