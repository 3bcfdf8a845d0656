import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentsRepository } from '../agents/agents.repository';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, Page, pageLimit } from '../common/pagination';
import { ControlSettings } from '../config/control.settings';
import { draftFields, PoliciesService } from '../policies/policies.service';
import { PolicyEngine } from '../policies/policy-engine.service';
import { snapshotPolicy } from '../policies/policy-snapshot';
import { BacktestQueue } from './backtest-queue';
import { BacktestRunner } from './backtest-runner';
import { PolicyBacktestCreateDto } from './dto/policy-backtest-create.dto';
import { presentBacktest, presentChange } from './policy-backtest.presenter';
import { PolicyBacktest, PolicyBacktestsRepository } from './policy-backtests.repository';

const MAX_WINDOW_MS = 90 * 86_400_000;
/** Each draft window is one bit of a per-request mask in the simulator. */
const MAX_DRAFT_WINDOWS = 30;

type Presented = ReturnType<typeof presentBacktest>;

@Injectable()
export class PolicyBacktestsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly agents: AgentsRepository,
    private readonly policies: PoliciesService,
    private readonly engine: PolicyEngine,
    private readonly backtests: PolicyBacktestsRepository,
    private readonly runner: BacktestRunner,
    private readonly queue: BacktestQueue,
    private readonly settings: ControlSettings,
  ) {}

  /** Runs a small window at once (`completed`); queues a larger one. */
  async create(workspaceId: string, dto: PolicyBacktestCreateDto): Promise<{ backtest: Presented; completed: boolean }> {
    const from = new Date(dto.from);
    const to = new Date(dto.to);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw unprocessable('from and to must be date-times');
    if (from >= to) throw unprocessable('from must be before to');
    if (to.getTime() - from.getTime() > MAX_WINDOW_MS) throw unprocessable('A backtest covers at most 90 days');
    const em = this.dataSource.manager;
    const agentId = dto.agent_id ?? null;
    if (agentId && !(await this.agents.find(workspaceId, agentId, em))) throw notFound('agent');
    const fields = draftFields(dto.policy);
    // Module rules are read under a share lock, which needs a transaction.
    const modules = await this.dataSource.transaction((tx) => this.policies.resolve(tx, workspaceId, fields));
    const snapshot = snapshotPolicy({ ...fields, id: 'draft' }, modules);
    if (this.engine.prepare([snapshot]).compiled.windows.length > MAX_DRAFT_WINDOWS) throw unprocessable(`A backtest draft has at most ${MAX_DRAFT_WINDOWS} windowed rules`);
    const limit = this.settings.POLICY_BACKTEST_INLINE_LIMIT;
    const inline = (await this.backtests.countDecisions(workspaceId, agentId, from, to, limit + 1)) <= limit;
    const row = await this.backtests.insert(em, {
      workspace_id: workspaceId,
      agent_id: agentId,
      mode: dto.mode ?? 'sequential',
      policy: { ...dto.policy },
      snapshot,
      from_at: from,
      to_at: to,
      status: inline ? 'running' : 'queued',
    });
    if (!inline) {
      await this.queue.enqueue(workspaceId, row.id);
      return { backtest: presentBacktest(row), completed: false };
    }
    return { backtest: presentBacktest(await this.runInline(row)), completed: true };
  }

  private async runInline(row: PolicyBacktest): Promise<PolicyBacktest> {
    try {
      return await this.runner.run(row);
    } catch (err) {
      await this.backtests.fail(row.workspace_id, row.id, 'The backtest stopped on an internal error');
      throw err;
    }
  }

  async get(workspaceId: string, id: string): Promise<Presented> {
    const row = await this.backtests.find(workspaceId, id);
    if (!row) throw notFound('policy backtest');
    return presentBacktest(row);
  }

  async list(workspaceId: string, query: ListQueryDto): Promise<Page<Presented>> {
    const limit = pageLimit(query);
    const rows = await this.backtests.list(workspaceId, limit, uuidOrNull(query.starting_after));
    const hasMore = rows.length === limit;
    return { data: rows.map(presentBacktest), has_more: hasMore, next_cursor: hasMore ? rows[rows.length - 1].id : null };
  }

  async changes(workspaceId: string, id: string, query: ListQueryDto): Promise<Page<ReturnType<typeof presentChange>>> {
    if (!(await this.backtests.find(workspaceId, id))) throw notFound('policy backtest');
    const limit = pageLimit(query);
    const rows = await this.backtests.changes(workspaceId, id, limit, uuidOrNull(query.starting_after));
    const hasMore = rows.length === limit;
    return { data: rows.map(presentChange), has_more: hasMore, next_cursor: hasMore ? rows[rows.length - 1].intent_id : null };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A cursor that is no id restarts at the first page, as every control list does. */
const uuidOrNull = (value: string | undefined) => (value && UUID.test(value) ? value : null);
