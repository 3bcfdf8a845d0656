import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { FundsRepository } from './funds.repository';
import { FundsSchema } from './funds.schema';

const DEFAULT_CURRENCY = 'USD';

@WorkspaceRoutes('funds')
export class FundsController {
  constructor(private readonly funds: FundsRepository) {}

  /**
   * The ledger is never in the authorization path, and this service reads no ledger data, so the
   * ledger figures degrade (`ledger_ready: false`, an empty `by_agent`) rather than fail.
   */
  @Get()
  @RequireCapability('read')
  @ApiOperation({ summary: 'Funds in the primary currency; `by_currency` lists every currency in use' })
  @ApiData(FundsSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess) {
    const totals = await this.funds.totals(workspace.id);
    const primary = totals.find((t) => t.currency === DEFAULT_CURRENCY) ??
      totals[0] ?? { currency: DEFAULT_CURRENCY, available_cents: 0, held_cents: 0, committed_cents: 0 };
    return {
      data: {
        ...primary,
        ledger_committed_cents: 0,
        unprojected_cents: primary.committed_cents,
        ledger_ready: false,
        by_agent: [],
        by_currency: totals,
      },
    };
  }
}
