import { Body, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { TraceId } from '../common/trace-id.decorator';
import type { Identity } from '../identity/identity-token.verifier';
import { CurrentIdentity } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { BillingOverviewSchema, CheckoutResultSchema, PackResultSchema, PortalResultSchema } from './billing.schema';
import { BillingCaller, BillingService } from './billing.service';
import { CheckoutDto } from './dto/checkout.dto';
import { PackDto } from './dto/pack.dto';

const UNAVAILABLE = {
  status: 503,
  description:
    'billing_unavailable: the provider did not answer (Retry-After says when to retry), or billing is not configured. ' +
    'Agent authorization never depends on billing, so it is unaffected either way.',
};

/** A workspace's plan, usage and subscription; writes need manage_members. */
@WorkspaceRoutes('billing')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get()
  @RequireCapability('read')
  @ApiOperation({ summary: 'Plan, subscription, entitlements against this period’s usage, prepaid packs and the plan catalogue (read from local state; never calls the provider)' })
  @ApiData(BillingOverviewSchema)
  async overview(@CurrentWorkspace() access: WorkspaceAccess) {
    return { data: await this.billing.overview(access.workspace.id) };
  }

  @Post('checkout')
  @RequireCapability('manage_members')
  @ApiOperation({ summary: 'Start a hosted checkout {checkout_url, checkout_id, plan}, or, when already subscribed, change the plan in place {plan_changed, plan, status}' })
  @ApiData(CheckoutResultSchema, 201)
  @ApiResponse({ status: 422, description: 'sandbox (free: cancel instead) or a plan with no provider price' })
  @ApiResponse(UNAVAILABLE)
  async checkout(@CurrentWorkspace() access: WorkspaceAccess, @CurrentIdentity() identity: Identity, @TraceId() traceId: string, @Body() dto: CheckoutDto) {
    return { data: await this.billing.checkout(caller(access, identity, traceId), dto) };
  }

  @Post('packs')
  @RequireCapability('manage_members')
  @ApiOperation({ summary: 'Start a hosted checkout for prepaid gated-volume packs' })
  @ApiData(PackResultSchema, 201)
  @ApiResponse(UNAVAILABLE)
  async packs(@CurrentWorkspace() access: WorkspaceAccess, @CurrentIdentity() identity: Identity, @TraceId() traceId: string, @Body() dto: PackDto) {
    return { data: await this.billing.buyPacks(caller(access, identity, traceId), dto) };
  }

  @Post('portal')
  @HttpCode(200)
  @RequireCapability('manage_members')
  @ApiOperation({ summary: "A session in the provider's customer portal (invoices, payment methods)" })
  @ApiData(PortalResultSchema)
  @ApiResponse({ status: 422, description: 'The workspace has never been billed' })
  @ApiResponse(UNAVAILABLE)
  async portal(@CurrentWorkspace() access: WorkspaceAccess, @TraceId() traceId: string) {
    return { data: await this.billing.portal(access.workspace.id, traceId) };
  }

  @Post('cancel')
  @HttpCode(200)
  @RequireCapability('manage_members')
  @ApiOperation({ summary: 'Cancel the subscription at the end of the current period' })
  @ApiData(BillingOverviewSchema)
  @ApiResponse({ status: 422, description: 'No subscription to cancel' })
  @ApiResponse(UNAVAILABLE)
  async cancel(@CurrentWorkspace() access: WorkspaceAccess, @CurrentIdentity() identity: Identity, @TraceId() traceId: string) {
    return { data: await this.billing.cancel(caller(access, identity, traceId)) };
  }

  @Post('refresh')
  @HttpCode(200)
  @RequireCapability('manage_members')
  @ApiOperation({ summary: 'Re-read the subscription from the provider (for a missed webhook)' })
  @ApiData(BillingOverviewSchema)
  @ApiResponse(UNAVAILABLE)
  async refresh(@CurrentWorkspace() access: WorkspaceAccess, @CurrentIdentity() identity: Identity, @TraceId() traceId: string) {
    return { data: await this.billing.refresh(caller(access, identity, traceId)) };
  }
}

function caller(access: WorkspaceAccess, identity: Identity, traceId: string): BillingCaller {
  return { access, identity, traceId };
}
