import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { bearerToken } from '@bursar/service-kit';
import { ControlRateLimiter } from '../common/control-rate-limiter';
import { AGENT_KEY_PREFIX } from '../agents/agent-key';
import { IdentityErrors } from './identity.errors';
import { Identity, IdentityTokenVerifier } from './identity-token.verifier';

type IdentifiedRequest = Request & { identity?: Identity };

/** Admits requests carrying a valid identity token, within the person's rate limit; agent keys never pass. */
@Injectable()
export class IdentityGuard implements CanActivate {
  constructor(
    private readonly verifier: IdentityTokenVerifier,
    private readonly rateLimiter: ControlRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<IdentifiedRequest>();
    const token = bearerToken(req);
    if (!token) throw IdentityErrors.error('identity_token_required');
    if (token.startsWith(AGENT_KEY_PREFIX)) throw IdentityErrors.error('invalid_identity_token');
    req.identity = await this.verifier.verify(token);
    await this.rateLimiter.person(req.identity.sub, context.switchToHttp().getResponse<Response>());
    return true;
  }
}

/** The identity IdentityGuard verified for this request. */
export const CurrentIdentity = createParamDecorator(
  (_: unknown, context: ExecutionContext): Identity => context.switchToHttp().getRequest<IdentifiedRequest>().identity as Identity,
);
