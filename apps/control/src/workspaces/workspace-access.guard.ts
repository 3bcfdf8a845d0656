import { applyDecorators, CanActivate, Controller, createParamDecorator, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiExtension, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { IdentityGuard } from '../identity/identity.guard';
import type { Identity } from '../identity/identity-token.verifier';
import { Capability } from './workspace-roles';
import { WorkspaceAccess } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

type WorkspaceRequest = Request & { identity?: Identity; workspaceAccess?: WorkspaceAccess };

const CAPABILITY = Symbol('capability');

/**
 * The capability a workspace route needs; runs after IdentityGuard. The OpenAPI document names it
 * (`x-required-capability`) because the method alone does not tell: a replay is a POST that only reads.
 */
export const RequireCapability = (capability: Capability) =>
  applyDecorators(SetMetadata(CAPABILITY, capability), ApiExtension('x-required-capability', capability));

/**
 * A controller of `control/v1/workspaces/:workspace_slug/<resource>`: a person's identity token, then
 * their membership of the workspace with the capability each route (or the class) requires. The
 * OpenAPI tag defaults to the resource in words.
 */
export const WorkspaceRoutes = (resource: string, tag = resource.replace(/_/g, ' ')) =>
  applyDecorators(ApiTags(tag), ApiBearerAuth('identity_token'), UseGuards(IdentityGuard, WorkspaceAccessGuard), Controller(`control/v1/workspaces/:workspace_slug/${resource}`));

/** Resolves `:workspace_slug` to the caller's membership and checks the route's capability. */
@Injectable()
export class WorkspaceAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly workspaces: WorkspacesService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<WorkspaceRequest>();
    const capability = this.reflector.getAllAndOverride<Capability | undefined>(CAPABILITY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!capability) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no capability`);
    req.workspaceAccess = await this.workspaces.access(req.identity as Identity, String(req.params.workspace_slug), capability);
    return true;
  }
}

/** The membership WorkspaceAccessGuard resolved for this request. */
export const CurrentWorkspace = createParamDecorator(
  (_: unknown, context: ExecutionContext): WorkspaceAccess =>
    context.switchToHttp().getRequest<WorkspaceRequest>().workspaceAccess as WorkspaceAccess,
);
