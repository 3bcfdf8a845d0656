import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { TenantScope } from '../common/mode';
import { ClientScope } from '../oauth-clients/oauth-scopes';
import { AccessGrant } from './access-token.service';
import { BearerAuthGuard, REQUIRED_SCOPE as REQUIRED_SCOPE_KEY } from './bearer-auth.guard';

/** The route needs a valid access token holding `scope`. */
export function RequireScope(scope: ClientScope) {
  return applyDecorators(SetMetadata(REQUIRED_SCOPE_KEY, scope), UseGuards(BearerAuthGuard), ApiBearerAuth('oauth2'));
}

/** The route needs a valid access token, whatever its scopes (so its answer carries the caller's rate-limit headers). */
export function RequireToken() {
  return applyDecorators(UseGuards(BearerAuthGuard), ApiBearerAuth('oauth2'));
}

/** The verified grant of a request that passed @RequireScope. */
export function grantOf(ctx: ExecutionContext): AccessGrant {
  const grant = ctx.switchToHttp().getRequest<Request>().grant;
  // Only reachable when a route forgot @RequireScope: a programming error, not a client's.
  if (!grant) throw new Error('route reads the caller without @RequireScope');
  return grant;
}

/** The caller's verified grant. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): AccessGrant => grantOf(ctx));

/** The organization and mode every query of this request is confined to. */
export const Tenant = createParamDecorator((_: unknown, ctx: ExecutionContext): TenantScope => {
  const grant = grantOf(ctx);
  return { organizationId: grant.organizationId, mode: grant.mode };
});
