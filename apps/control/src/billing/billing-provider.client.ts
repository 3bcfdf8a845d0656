import { Injectable } from '@nestjs/common';
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

type Form = Record<string, string | number | boolean>;

/**
 * Adapter to the billing provider, a Stripe-shaped HTTP API: secret key as bearer, form-encoded
 * bodies, `/v1/checkout/sessions`, `/v1/subscriptions/{id}`, `/v1/billing_portal/sessions`.
 * Anything other than an answer (refused connection, timeout, 5xx) is `billing_unavailable`.
 */
@Injectable()
export class BillingProviderClient {
  constructor(private readonly settings: ControlSettings) {}

  get configured(): boolean {
    return Boolean(this.settings.BILLING_API_KEY);
  }

  /** A hosted checkout; the workspace id rides along so the completion webhook can be matched. */
  createCheckout(req: CheckoutRequest): Promise<ProviderSession> {
    const form: Form = {
      mode: req.mode,
      'line_items[0][price]': req.price,
      'line_items[0][quantity]': req.quantity,
      client_reference_id: req.workspaceId,
      success_url: this.settings.BILLING_RETURN_URL,
      cancel_url: this.settings.BILLING_RETURN_URL,
      'metadata[workspace_id]': req.workspaceId,
    };
    for (const [key, value] of Object.entries(req.metadata)) form[`metadata[${key}]`] = value;
    if (req.mode === 'subscription') form['subscription_data[metadata][workspace_id]'] = req.workspaceId;
    if (req.customer) form.customer = req.customer;
    else if (req.email) form.customer_email = req.email;
    return this.call<ProviderSession>('POST', '/v1/checkout/sessions', form);
  }

  getSubscription(id: string): Promise<ProviderSubscription> {
    return this.call('GET', `/v1/subscriptions/${encodeURIComponent(id)}`);
  }

  /** Moves the subscription's single item to another price, prorated, as a plan change does. */
  async changePrice(id: string, price: string, plan: string): Promise<ProviderSubscription> {
    const current = await this.getSubscription(id);
    const item = current.items?.data?.[0];
    if (!item) throw new ApiError(502, null, 'The billing provider returned a subscription without items');
    return this.call('POST', `/v1/subscriptions/${encodeURIComponent(id)}`, {
      'items[0][id]': item.id,
      'items[0][price]': price,
      proration_behavior: 'create_prorations',
      cancel_at_period_end: false,
      'metadata[plan]': plan,
    });
  }

  cancelAtPeriodEnd(id: string): Promise<ProviderSubscription> {
    return this.call('POST', `/v1/subscriptions/${encodeURIComponent(id)}`, { cancel_at_period_end: true });
  }

  createPortal(customer: string): Promise<{ url: string }> {
    return this.call('POST', '/v1/billing_portal/sessions', { customer, return_url: this.settings.BILLING_RETURN_URL });
  }

  private async call<T>(method: 'GET' | 'POST', path: string, form?: Form): Promise<T> {
    const key = this.settings.BILLING_API_KEY;
    if (!key) throw billingNotConfigured();
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.settings.BILLING_API_URL.replace(/\/$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString() : undefined,
        signal: AbortSignal.timeout(this.settings.BILLING_TIMEOUT_MS),
      });
      status = res.status;
      text = await res.text();
    } catch {
      throw billingUnavailable();
    }
    if (status >= 500 || status === 429) throw billingUnavailable();
    const body = parseJson(text) as T | undefined;
    if (status >= 300 || typeof body !== 'object' || body === null) {
      // A refusal is a configuration problem (an unknown price, say), not the caller's input.
      throw new ApiError(502, null, `The billing provider refused the request (HTTP ${status})`);
    }
    return body;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
