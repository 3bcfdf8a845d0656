import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource } from 'typeorm';
import type { Agent } from '../agents/agent.entity';
import { AuditService } from '../audit/audit.service';
import { BudgetsService } from '../budgets/budgets.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import { MintSpendTokenDto } from './dto/mint-spend-token.dto';
import { SpendToken } from './spend-token.entity';
import { presentSpendToken, spendTokenAudit } from './spend-token.presenter';
import { SpendTokensRepository } from './spend-tokens.repository';

// Payment evaluation reads token status through here.
export { effectiveStatus } from './spend-token.presenter';

@Injectable()
export class SpendTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: SpendTokensRepository,
    private readonly budgets: BudgetsService,
    private readonly audit: AuditService,
  ) {}

  /** Mints a token against one of the agent's own active budgets. */
  async mint(agent: Agent, dto: MintSpendTokenDto, traceId: string): Promise<SpendToken> {
    const expiresAt = dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw unprocessable('expires_at must lie in the future');
    const budget = await this.budgets.get(agent, dto.budget_id);
    if (budget.status !== 'active') throw unprocessable(`The budget is ${budget.status}; tokens are minted against active budgets`);
    return retryingTransaction(this.dataSource, async (em) => {
      const token = await this.tokens.insert(em, agent.workspace_id, agent.id, {
        budget_id: budget.id,
        amount_ceiling_cents: dto.amount_ceiling_cents,
        counterparty: dto.counterparty ?? null,
        expires_at: expiresAt,
      });
      await this.audit.append(em, agent.workspace_id, spendTokenAudit(agent, token, 'spend_token.issued', traceId));
      return token;
    });
  }

  async list(workspaceId: string, filter: { budget_id?: string; agent_id?: string }, page: ListQueryDto) {
    return mapPage(await this.tokens.list(workspaceId, filter, page), presentSpendToken);
  }

  async get(workspaceId: string, id: string, agentId?: string): Promise<SpendToken> {
    return (await this.tokens.find(workspaceId, id, agentId)) ?? Promise.reject(notFound('spend token'));
  }
}
