import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { bearerToken } from '@bursar/service-kit';
import { LedgerErrors } from '../common/ledger-errors';
import { ClientScope } from '../oauth-clients/oauth-scopes';
import { OrganizationsService } from '../organizations/organizations.service';
import { LedgerRateLimits, READ_METHODS } from '../rate-limit/ledger-rate-limits.service';
import { AccessGrant, AccessTokenService } from './access-token.service';
import { AuthErrors } from './auth-errors';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified access token of the caller; set by BearerAuthGuard. */
      grant?: AccessGrant;
    }
  }
}

export const REQUIRED_SCOPE = Symbol('requiredScope');
const REALM = 'realm="bursar-ledger"';

/** RFC 6750: 401 with a Bearer challenge; a bad token is named `invalid_token`. */
function unauthorized(message: string, tokenPresented: boolean) {
  const challenge = tokenPresented ? `Bearer ${REALM}, error="invalid_token"` : `Bearer ${REALM}`;
  return LedgerErrors.error('unauthorized', { message, headers: { 'WWW-Authenticate': challenge } });
}

@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly reflector: Reflector,
    private readonly rateLimits: LedgerRateLimits,
    private readonly organizations: OrganizationsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const token = bearerToken(req);
    if (!token) throw unauthorized('Send Authorization: Bearer <access token> from POST /oauth/token', false);
    const grant = await this.tokens.verify(token);
    if (!grant) throw unauthorized('The access token is invalid or expired', true);
    req.grant = grant;
    req.livemode = grant.mode === 'live';
    // Counted before anything else, so refused and forbidden calls spend budget too. The
    // organization is read meanwhile (one wait instead of two); errors keep their order below.
    const counted = this.rateLimits.take(grant, req, res);
    const organization = this.organizations.forRequest(grant.organizationId, !READ_METHODS.has(req.method));
    organization.catch(() => undefined);
    await counted;

    // Undefined for routes that only need a valid token (the 405 on DELETE transaction).
    const needed = this.reflector.get<ClientScope | undefined>(REQUIRED_SCOPE, context.getHandler());
    if (needed && !grant.scopes.includes(needed)) {
      throw AuthErrors.error('insufficient_scope', {
        hint: `Request a token with the ${needed} scope (the client must hold it)`,
        details: { required_scope: needed },
        headers: { 'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${needed}"` },
      });
    }
    await organization;
    return true;
  }
}
