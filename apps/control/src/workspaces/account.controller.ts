import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentIdentity, IdentityGuard } from '../identity/identity.guard';
import type { Identity } from '../identity/identity-token.verifier';
import { presentWorkspace, WorkspacesService } from './workspaces.service';

/** The signed-in person and the workspaces they belong to. */
@ApiTags('sign-in')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard)
@Controller('v1/account')
export class AccountController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  async get(@CurrentIdentity() identity: Identity) {
    const workspaces = (await this.workspaces.listMine(identity)).map(presentWorkspace);
    return { data: { sub: identity.sub, email: identity.email, workspaces } };
  }
}
