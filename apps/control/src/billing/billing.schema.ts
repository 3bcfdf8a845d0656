import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PLAN_IDS } from './billing-plans';

/* OpenAPI shapes of the billing responses and of the inbound provider event. */

export class AllowanceSchema {
  @ApiProperty({ type: Number, nullable: true, description: 'null: unlimited' }) limit: number | null;
  @ApiProperty({ description: 'agents and members: now; the rest: this period' }) used: number;
  @ApiProperty({ type: Number, nullable: true }) remaining: number | null;
}

export class EntitlementsSchema {
  @ApiProperty() agents: AllowanceSchema;
  @ApiProperty() members: AllowanceSchema;
  @ApiProperty() payment_authorizations: AllowanceSchema;
  @ApiProperty() action_authorizations: AllowanceSchema;
  @ApiProperty({ description: 'Cents authorized this period; the limit includes prepaid packs' }) gated_volume: AllowanceSchema;
  @ApiProperty() live_mode: boolean;
  @ApiProperty({ description: 'Charge accrued this period for gated volume beyond the allowance' }) overage_cents: number;
  @ApiProperty() audit_retention_days: number;
  @ApiProperty({ format: 'date-time' }) period_start: string;
  @ApiProperty({ format: 'date-time' }) period_end: string;
}

export class SubscriptionSchema {
  @ApiProperty({ description: "The provider's subscription id" }) id: string;
  @ApiProperty({ description: "The provider's status: active, trialing, past_due, ..." }) status: string;
  @ApiProperty({ enum: PLAN_IDS }) plan: string;
  @ApiProperty({ description: 'True after POST /billing/cancel: it ends at current_period_end' }) cancel_at_period_end: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) current_period_start: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) current_period_end: string | null;
}

export class PrepaidSchema {
  @ApiProperty({ description: 'Pack units paid for this period' }) units: number;
  @ApiProperty() volume_cents: number;
  @ApiProperty({ description: 'Gated volume beyond the plan that the packs absorbed' }) used_cents: number;
  @ApiProperty() remaining_cents: number;
}

export class PlanSchema {
  @ApiProperty({ enum: PLAN_IDS }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null: priced by contract' }) monthly_price_cents: number | null;
  @ApiProperty({ type: 'object', description: 'Per-dimension limit (null: unlimited)', additionalProperties: { type: 'integer', nullable: true } })
  limits: Record<string, number | null>;
  @ApiProperty() live_mode: boolean;
  @ApiProperty() audit_retention_days: number;
  @ApiProperty({ description: 'Overage charge in basis points of the excess gated volume' }) overage_bps: number;
  @ApiProperty({ description: 'Sold through POST /billing/checkout on this deployment' }) purchasable: boolean;
}

export class BillingOverviewSchema {
  @ApiProperty({
    description:
      'False while no billing provider is configured: billing writes answer 503 billing_unavailable, and since nothing is sold ' +
      'every workspace gets the enterprise entitlements (no limits, live mode)',
  })
  configured: boolean;
  @ApiProperty({ enum: PLAN_IDS, description: "The plan whose entitlements apply: the subscription's, else sandbox (enterprise with no provider)" }) plan: string;
  @ApiProperty({ type: SubscriptionSchema, nullable: true }) subscription: SubscriptionSchema | null;
  @ApiProperty() entitlements: EntitlementsSchema;
  @ApiProperty() prepaid: PrepaidSchema;
  @ApiProperty({ type: [PlanSchema] }) plans: PlanSchema[];
}

export class CheckoutResultSchema {
  @ApiPropertyOptional({ description: 'Hosted checkout: send the person here' }) checkout_url?: string;
  @ApiPropertyOptional() checkout_id?: string;
  @ApiProperty({ enum: PLAN_IDS }) plan: string;
  @ApiPropertyOptional({ description: 'In-place change (already subscribed): whether the plan moved' }) plan_changed?: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: "In-place change: the subscription's status" }) status?: string | null;
}

export class PackResultSchema {
  @ApiProperty() checkout_url: string;
  @ApiProperty() checkout_id: string;
  @ApiProperty() units: number;
  @ApiProperty() volume_cents: number;
}

export class PortalResultSchema {
  @ApiProperty() portal_url: string;
}

export class BillingEventDataSchema {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'checkout.session.*: the session {id, mode, customer, subscription, payment_status}. customer.subscription.*: the ' +
      'subscription {id, customer, status, cancel_at_period_end, current_period_start, current_period_end (unix seconds), ' +
      'items.data[0].price.id, metadata.workspace_id, metadata.plan}',
  })
  object: Record<string, unknown>;
}

export class BillingEventSchema {
  @ApiProperty({ description: 'Event id; a redelivery of an applied id changes nothing' }) id: string;
  @ApiProperty({
    description:
      'Applied: checkout.session.completed, checkout.session.async_payment_succeeded, customer.subscription.created, ' +
      'customer.subscription.updated, customer.subscription.deleted. Others are acknowledged and ignored.',
  })
  type: string;
  @ApiPropertyOptional({ description: 'Unix seconds; subscription events older than the state applied are ignored' }) created?: number;
  @ApiProperty() data: BillingEventDataSchema;
}

export class WebhookReceiptSchema {
  @ApiProperty() id: string;
  @ApiProperty() type: string;
  @ApiProperty() duplicate: boolean;
  @ApiProperty({
    description:
      'True when the event named a subscription another workspace already holds: it is acknowledged (a retry cannot fix it), ' +
      'recorded so redeliveries are duplicates, logged as a warning, and changes nothing',
  })
  ignored: boolean;
}
